// ADS failures -> catalog errors: ADS code and text in the message, timeouts and lost links told apart.
import { AppError, isAppError } from '../../errors.ts';
import { AdsErrorCode, adsErrorText } from '../../plc/ads/error-codes.ts';

/** A sub-command of a sum request failed with `code`: classified like a failed single request. */
export class AdsCodeError extends Error {
  readonly adsError: { errorCode: number };

  constructor(code: number) {
    super(`ADS error ${code}`);
    this.adsError = { errorCode: code };
  }
}

/** What a failed ads-client call tells us, without its (internal, unstable) message text. */
export interface AdsFailure {
  kind: 'ads' | 'timeout' | 'unavailable' | 'other';
  /** The ADS (or AMS) result code, for kind 'ads'. */
  code?: number;
}

interface ClientErrorShape {
  adsError?: { errorCode?: unknown };
  trace?: unknown;
  message?: unknown;
}

/** Classifies an error thrown by ads-client (ClientError: an ADS code, a timeout, or no connection). */
export function classify(err: unknown): AdsFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ClientErrorShape;
  const code = e.adsError?.errorCode;
  if (typeof code === 'number' && code > 0) {
    return code === AdsErrorCode.Timeout ? { kind: 'timeout', code } : { kind: 'ads', code };
  }
  const texts = [
    ...(Array.isArray(e.trace) ? (e.trace as unknown[]).map(String) : []),
    typeof e.message === 'string' ? e.message : '',
  ].join('\n');
  if (/timeout/i.test(texts)) return { kind: 'timeout' };
  if (/not connected|socket is not available|socket (?:closed|ended)|connection/i.test(texts)) {
    return { kind: 'unavailable' };
  }
  return { kind: 'other' };
}

/** The ADS result code of a failure, or undefined when it carried none. */
export function adsCodeOf(err: unknown): number | undefined {
  const f = classify(err);
  return f.kind === 'ads' || f.kind === 'timeout' ? f.code : undefined;
}

export function adsError(code: number, what: string): AppError {
  if (code === AdsErrorCode.SymbolNotFound)
    return new AppError('SYMBOL_NOT_FOUND', `${what}: symbol not found.`);
  if (code === AdsErrorCode.Timeout)
    return new AppError('ADS_TIMEOUT', `${what}: the PLC did not answer in time.`);
  return new AppError('ADS_ERROR', `${what}: ADS error ${code} (${lowerFirst(adsErrorText(code))}).`);
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
    case 'unavailable':
      return new AppError('PLC_UNAVAILABLE', `PLC '${plcId}' is not connected.`);
    case 'other':
      return new AppError('ADS_ERROR', `${what}: the ADS request failed.`);
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
