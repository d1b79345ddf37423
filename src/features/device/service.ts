// Device info and state of one PLC, as the port reports them; the timestamp leaves as ISO 8601 UTC.
import type { AdsState, DeviceInfo, PlcTarget } from '../../targets/target.ts';

export interface DeviceStateView {
  state: AdsState;
  /** ISO 8601 with the UTC offset (`Z`). */
  timestamp: string;
}

export function deviceInfo(target: PlcTarget): Promise<DeviceInfo> {
  return target.deviceInfo();
}

export async function deviceState(target: PlcTarget): Promise<DeviceStateView> {
  const { state, timestamp } = await target.deviceState();
  return { state, timestamp: timestamp.toISOString() };
}
