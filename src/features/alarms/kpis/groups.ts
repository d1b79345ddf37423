// How many alarms of a PLC are shelved, out of service or suppressed now: alarm management publishes an
// AlarmGroupCounter; without one nothing can be in those groups, so each counts 0.
import { ServiceKey } from '../../../feature-kit/service-directory.ts';

export interface AlarmGroupCounts {
  readonly shelved: number;
  readonly outOfService: number;
  readonly suppressed: number;
}

export interface AlarmGroupCounter {
  /** The counts of one monitored PLC now. */
  groupCounts(plcId: string): AlarmGroupCounts;
}

export const alarmGroupCounterKey = new ServiceKey<AlarmGroupCounter>('alarm group counts');

export const noGroups: AlarmGroupCounts = { shelved: 0, outOfService: 0, suppressed: 0 };
