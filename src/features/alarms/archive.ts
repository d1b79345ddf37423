// Where alarm transitions older than the in-memory journal are read from: a feature that stores them (the
// historian) publishes an AlarmArchive; without one, a time window is served from the journal alone.
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import type { JournalEntry } from './journal.ts';

export interface AlarmArchive {
  /** Transitions of `plcId` at [from, to) (Unix ms) with seq > `after`, oldest first, at most `limit`. */
  read(plcId: string, from: number, to: number, after: number, limit: number): Promise<JournalEntry[]>;
}

export const alarmArchiveKey = new ServiceKey<AlarmArchive>('alarm archive');
