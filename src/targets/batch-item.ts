// One item of a batch read or write: an AppError fails that item alone (reported in its place), anything else
// is a fault of the whole batch and propagates.
import { isAppError } from '../errors.ts';

export interface ItemError {
  symbol: string;
  error: { code: string; message: string };
}

export function perItem<T>(symbol: string, fn: () => T): { value: T } | ItemError {
  try {
    return { value: fn() };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return { symbol, error: { code: err.code, message: err.message } };
  }
}
