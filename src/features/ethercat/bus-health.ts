// How healthy one PLC's EtherCAT is, from a reading of its masters, and which slave changes are worth telling
// clients: a state, error or link change, or the CRC count (all ports) crossing the threshold.
import type { EtherCatMasterReading, EtherCatSlaveReading } from '../../targets/ethercat-port.ts';
import { portNames } from '../../targets/ethercat-port.ts';

export type BusStatus = 'Healthy' | 'Degraded' | 'Unhealthy';

export function crcTotal(s: EtherCatSlaveReading): number {
  return portNames.reduce((sum, p) => sum + s.crcErrors[p], 0);
}

/**
 * Unhealthy: a master not in OP, or a slave whose link is lost or missing. Degraded: a slave not in OP, in
 * error, or with more CRC errors than the threshold. Healthy otherwise. With the reason, for the description.
 */
export function busStatus(
  readings: readonly EtherCatMasterReading[],
  threshold: number,
): { status: BusStatus; reason: string } {
  const degraded: string[] = [];
  for (const m of readings) {
    if (m.currentState !== 'OP')
      return { status: 'Unhealthy', reason: `master ${m.deviceId} is in ${m.currentState}` };
    for (const s of m.slaves) {
      if (s.link !== 'ok') return { status: 'Unhealthy', reason: `slave ${s.address} link ${s.link}` };
      if (s.state !== 'OP' || s.error) degraded.push(`slave ${s.address} ${s.state}${s.error ? '+ERR' : ''}`);
      else if (crcTotal(s) > threshold) degraded.push(`slave ${s.address} has ${crcTotal(s)} CRC errors`);
    }
  }
  if (degraded.length > 0) return { status: 'Degraded', reason: degraded.join(', ') };
  return { status: 'Healthy', reason: 'every master and slave in OP' };
}

/** A slave a technician should look at: not in OP, in error, its link not ok, or over the CRC threshold. */
export function needsAttention(s: EtherCatSlaveReading, threshold: number): boolean {
  return s.state !== 'OP' || s.error || s.link !== 'ok' || crcTotal(s) > threshold;
}

export const worst = (a: BusStatus, b: BusStatus): BusStatus => {
  const rank = { Healthy: 0, Degraded: 1, Unhealthy: 2 } as const;
  return rank[a] >= rank[b] ? a : b;
};

/** Whether the slave changed in a way clients are told about. */
export function notable(
  before: EtherCatSlaveReading,
  after: EtherCatSlaveReading,
  threshold: number,
): boolean {
  return (
    before.state !== after.state ||
    before.error !== after.error ||
    before.link !== after.link ||
    crcTotal(before) > threshold !== crcTotal(after) > threshold
  );
}
