// EtherCAT events on a notification stream (SSE `?ethercat=true`, hub `SubscribeEtherCat()`): every slave's
// current state first, then each notable change, as `ethercat` { masterId, address, slave }.
import type { Config } from '../../config/schema.ts';
import { AppError } from '../../errors.ts';
import type { StreamEvent } from '../../http/streams/outbox.ts';
import type { PlcTarget } from '../../targets/target.ts';
import type { EtherCatChange, EtherCatMonitor } from './monitor.ts';
import { slaveView } from './service.ts';
import { etherCatSettings } from './settings.ts';

/** Why a client may not have EtherCAT events of `target`: the flag is off (501) or the PLC's notifications (400). */
export function checkEtherCatStream(config: Config, target: PlcTarget): void {
  if (!config.features.EtherCatDiagnostics) {
    throw new AppError(
      'FEATURE_DISABLED',
      'The EtherCatDiagnostics feature is disabled (Features:EtherCatDiagnostics).',
    );
  }
  if (!etherCatSettings(config, target.id).enableNotifications) {
    throw new AppError(
      'VALIDATION_ERROR',
      `EtherCAT notifications are off for PLC '${target.id}' (PlcTargets:${target.id}:EtherCat:EnableNotifications).`,
    );
  }
}

/** Starts EtherCAT events to `emit`; resolves with the function that stops them. */
export async function streamEtherCat(
  monitor: EtherCatMonitor,
  target: PlcTarget,
  emit: (event: StreamEvent) => void,
): Promise<() => void> {
  const send = (change: EtherCatChange) => emit({ name: 'ethercat', data: JSON.stringify(change) });
  const { readings, stop } = await monitor.subscribe(target.id, send);
  for (const m of readings) {
    for (const s of m.slaves) send({ masterId: m.deviceId, address: s.address, slave: slaveView(s) });
  }
  return stop;
}
