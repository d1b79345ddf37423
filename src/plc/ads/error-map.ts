// The one mapping between ADS result codes and the gateway's error catalog, used both ways: the ADS
// driver classifies a PLC's answer by its code, the simulator's ADS server answers a failure with one.
import { errorCatalog, type ErrorCode } from '../../errors.ts';
import { AdsErrorCode } from './error-codes.ts';

interface Row {
  readonly ads: number;
  readonly error: ErrorCode;
  /** Whether the ADS server answers this catalog code with this ADS code (the first row per code wins). */
  readonly answered: boolean;
}

/** Codes with a meaning of their own; any other ADS code is ADS_ERROR (502) with the code in the message. */
const rows: readonly Row[] = [
  { ads: AdsErrorCode.SymbolNotFound, error: 'SYMBOL_NOT_FOUND', answered: true },
  { ads: AdsErrorCode.SymbolNotFound, error: 'TYPE_NOT_FOUND', answered: true },
  { ads: AdsErrorCode.NotFound, error: 'FILE_NOT_FOUND', answered: true },
  { ads: AdsErrorCode.InvalidData, error: 'TYPE_MISMATCH', answered: true },
  { ads: AdsErrorCode.InvalidParameter, error: 'VALIDATION_ERROR', answered: true },
  { ads: AdsErrorCode.ServiceNotSupported, error: 'ADS_ERROR', answered: true },
  { ads: AdsErrorCode.Timeout, error: 'ADS_TIMEOUT', answered: false },
  { ads: AdsErrorCode.DeviceTimeout, error: 'ADS_TIMEOUT', answered: false },
  { ads: AdsErrorCode.TargetPortNotFound, error: 'PLC_UNAVAILABLE', answered: false },
  { ads: AdsErrorCode.NotReady, error: 'PLC_UNAVAILABLE', answered: false },
];

const driverRows = new Map<number, ErrorCode>();
const serverRows = new Map<ErrorCode, number>();
for (const r of rows) {
  if (!driverRows.has(r.ads)) driverRows.set(r.ads, r.error);
  if (r.answered && !serverRows.has(r.error)) serverRows.set(r.error, r.ads);
}

/** The catalog code and HTTP status a PLC's ADS code stands for. */
export function errorForAdsCode(code: number): { error: ErrorCode; status: number } {
  const error = driverRows.get(code) ?? 'ADS_ERROR';
  return { error, status: errorCatalog[error].status };
}

/** The ADS code a server answers a catalog failure with; "general device error" (1792) for the rest. */
export function adsCodeForError(error: ErrorCode): number {
  return serverRows.get(error) ?? AdsErrorCode.DeviceError;
}
