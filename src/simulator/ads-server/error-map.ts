// Maps what a service throws (AdsError, the engine's AppError, anything else) to the ADS result code.

import { isAppError, type ErrorCode } from '../../errors.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/error-codes.ts';

const byAppCode: Partial<Record<ErrorCode, number>> = {
  SYMBOL_NOT_FOUND: AdsErrorCode.SymbolNotFound,
  TYPE_NOT_FOUND: AdsErrorCode.SymbolNotFound,
  FILE_NOT_FOUND: AdsErrorCode.NotFound,
  TYPE_MISMATCH: AdsErrorCode.InvalidData,
  VALIDATION_ERROR: AdsErrorCode.InvalidParameter,
  ADS_ERROR: AdsErrorCode.ServiceNotSupported,
};

/** The ADS result code for a failure; unexpected errors become "general device error" (1792). */
export function adsCodeOf(err: unknown): number {
  if (err instanceof AdsError) return err.code;
  if (isAppError(err)) return byAppCode[err.code] ?? AdsErrorCode.DeviceError;
  return AdsErrorCode.DeviceError;
}

/** True for failures a client caused; false for bugs worth logging. */
export function isExpectedFailure(err: unknown): boolean {
  return err instanceof AdsError || (isAppError(err) && err.code !== 'INTERNAL_ERROR');
}
