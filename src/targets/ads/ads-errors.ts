// ADS failures -> catalog errors: ADS code and text in the message, timeouts and lost links told apart.
import { AppError, isAppError } from '../../errors.ts';

/** Standard texts of the ADS codes a TwinCAT runtime answers with. */
const adsTexts: Readonly<Record<number, string>> = {
  1: 'internal error',
  6: 'target port not found',
  7: 'target machine not found',
  8: 'unknown command id',
  1792: 'general device error',
  1793: 'service is not supported',
  1794: 'invalid index group',
  1795: 'invalid index offset',
  1796: 'reading or writing not permitted',
  1797: 'parameter size not correct',
  1798: 'invalid parameter value',
  1799: 'device is not ready',
  1800: 'device is busy',
  1802: 'out of memory',
  1803: 'invalid parameter value',
  1804: 'not found',
  1805: 'syntax error',
  1806: 'objects do not match',
  1807: 'object already exists',
  1808: 'symbol not found',
  1809: 'symbol version invalid',
  1810: 'device is in an invalid state',
  1811: 'transmission mode not supported',
  1812: 'notification handle is invalid',
  1813: 'notification client not registered',
  1814: 'no more notification handles',
  1815: 'notification size too large',
  1816: 'device not initialized',
  1817: 'device has a timeout',
  1820: 'device aborted',
  1825: 'invalid array index',
  1827: 'access denied',
  1828: 'license not found',
  1861: 'timeout elapsed',
};

export const AdsCode = {
  NotFound: 1804,
  SymbolNotFound: 1808,
  ServiceNotSupported: 1793,
  InvalidIndexGroup: 1794,
  NoMoreHandles: 1814,
  Timeout: 1861,
} as const;

export function adsErrorText(code: number): string {
  return adsTexts[code] ?? 'unknown ADS error';
}

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
    return code === AdsCode.Timeout ? { kind: 'timeout', code } : { kind: 'ads', code };
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
  if (code === AdsCode.SymbolNotFound) return new AppError('SYMBOL_NOT_FOUND', `${what}: symbol not found.`);
  if (code === AdsCode.Timeout)
    return new AppError('ADS_TIMEOUT', `${what}: the PLC did not answer in time.`);
  return new AppError('ADS_ERROR', `${what}: ADS error ${code} (${adsErrorText(code)}).`);
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
