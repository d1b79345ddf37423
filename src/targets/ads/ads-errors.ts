// ADS failures -> catalog errors: ADS code and text in the message, timeouts and lost links told apart.
import { AppError, isAppError } from '../../errors.ts';
import { adsErrorText, errorForAdsCode } from '../../plc/ads/index.ts';
import { noAnswerCode } from './timed-client.ts';

/** A sub-command of a sum request failed with `code`: classified like a failed single request. */
export class AdsCodeError extends Error {
  readonly adsError: { errorCode: number };

  constructor(code: number) {
    super(`ADS error ${code}`);
    this.adsError = { errorCode: code };
  }
}

/** What a failed ads-client call tells us, by its ADS code alone (never by its message text). */
export interface AdsFailure {
  kind: 'ads' | 'timeout' | 'other';
  /** The ADS (or AMS) result code, for kind 'ads'. */
  code?: number;
}

interface ClientErrorShape {
  adsError?: { errorCode?: unknown };
  errorCode?: unknown;
}

/** Classifies an error thrown by ads-client (ClientError) or by our call wrapper. */
export function classify(err: unknown): AdsFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ClientErrorShape;
  // Our own timer's rejection reaches here bare or wrapped in ads-client's ClientError.
  const code = e.adsError?.errorCode ?? e.errorCode;
  if (code === noAnswerCode) return { kind: 'timeout' };
  if (typeof code === 'number' && code > 0) return { kind: 'ads', code };
  return { kind: 'other' };
}

/** The ADS result code of a failure, or undefined when it carried none. */
export function adsCodeOf(err: unknown): number | undefined {
  return classify(err).code;
}

/** The catalog error for ADS code `code`, by the table shared with the simulator's ADS server. */
export function adsError(code: number, what: string): AppError {
  const { error } = errorForAdsCode(code);
  const text = `ADS error ${code} (${lowerFirst(adsErrorText(code))})`;
  switch (error) {
    case 'SYMBOL_NOT_FOUND':
      return new AppError(error, `${what}: symbol not found.`);
    case 'ADS_TIMEOUT':
      return new AppError(error, `${what}: the PLC did not answer in time (${text}).`);
    case 'ADS_ERROR':
      return new AppError(error, `${what}: ${text}.`);
    default:
      return new AppError(error, `${what}: the PLC refused it with ${text}.`);
  }
}

/**
 * Maps any failure of an ADS call to a catalog error; `what` names the operation for the message.
 * AppErrors pass through; raw exception text never reaches the caller.
 */
export function toAppError(err: unknown, what: string, plcId: string): AppError {
  if (isAppError(err)) return err;
  const f = classify(err);
  switch (f.kind) {
    case 'ads':
      return adsError(f.code ?? 0, what);
    case 'timeout':
      return new AppError('ADS_TIMEOUT', `${what}: PLC '${plcId}' did not answer in time.`);
    case 'other':
      return new AppError('ADS_ERROR', `${what}: the ADS request failed.`);
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
