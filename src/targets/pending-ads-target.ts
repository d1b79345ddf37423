// A Real target without an ADS connection: it stays Disconnected and answers every PLC call PLC_UNAVAILABLE.
import { AppError } from '../errors.ts';
import type { PlcTargetConfig } from '../config/schema.ts';
import type { ConnectionState, PlcFiles, PlcTarget } from './target.ts';

/**
 * The target for `Mode: Real` entries while this build carries no ADS connection: it is listed with its
 * settings, reports `Disconnected`, and every PLC operation fails with PLC_UNAVAILABLE (HTTP 503).
 */
export function createPendingAdsTarget(id: string, settings: PlcTargetConfig): PlcTarget {
  const where = settings.AmsNetId === undefined ? '' : ` (${settings.AmsNetId}:${settings.Port})`;
  const unavailable = (): Promise<never> =>
    Promise.reject(new AppError('PLC_UNAVAILABLE', `PLC ${id}${where} is not connected`));
  const state: ConnectionState = 'Disconnected';
  const files: PlcFiles = { read: unavailable, write: unavailable, list: unavailable };

  return {
    id,
    displayName: settings.DisplayName,
    mode: 'Real',
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    connectionState: () => state,
    // The state never changes, so there is nothing to notify and nothing to remove.
    onConnectionState: () => () => undefined,
    deviceInfo: unavailable,
    deviceState: unavailable,
    setAdsState: unavailable,
    symbols: unavailable,
    enumMembers: unavailable,
    read: unavailable,
    readMany: unavailable,
    write: unavailable,
    writeMany: unavailable,
    invoke: unavailable,
    subscribe: unavailable,
    files,
  };
}
