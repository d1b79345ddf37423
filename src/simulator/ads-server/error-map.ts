// Maps what a service throws (AdsError, the engine's AppError, anything else) to the ADS result code.

import { isAppError } from '../../errors.ts';
import { AdsError, AdsErrorCode, adsCodeForError } from '../../plc/ads/index.ts';

/** The ADS result code for a failure; unexpected errors become "general device error" (1792). */
export function adsCodeOf(err: unknown): number {
  if (err instanceof AdsError) return err.code;
  if (isAppError(err)) return adsCodeForError(err.code);
  return AdsErrorCode.DeviceError;
}

/** True for failures a client caused; false for bugs worth logging. */
export function isExpectedFailure(err: unknown): boolean {
  return err instanceof AdsError || (isAppError(err) && err.code !== 'INTERNAL_ERROR');
}
