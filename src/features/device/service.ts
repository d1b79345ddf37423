// The device state of one PLC as the port reports it; the timestamp leaves as ISO 8601 UTC.
import type { AdsState, PlcTarget } from '../../targets/target.ts';

export interface DeviceStateView {
  state: AdsState;
  /** ISO 8601 with the UTC offset (`Z`). */
  timestamp: string;
}

export async function deviceState(target: PlcTarget): Promise<DeviceStateView> {
  const { state, timestamp } = await target.deviceState();
  return { state, timestamp: timestamp.toISOString() };
}
