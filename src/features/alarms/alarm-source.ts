// What the alarm service, routes and streams need of one monitored PLC. In one process the AlarmMonitor is it;
// replicas sharing a Redis give each PLC a source that follows the shared journal and watches the PLC only while
// it holds the PLC's lease.
import type { AlarmTargetConfig } from '../../config/schema.ts';
import type { PlcTarget } from '../../targets/target.ts';
import type { JournalEntry, JournalReader } from './journal.ts';
import type { AlarmReading } from './reading.ts';

export interface ScopeFailure {
  /**
   * Connecting, Disconnected: the PLC connection. Stale (replicas sharing a Redis): the shared journal is out
   * of reach, so the list is this replica's last copy of it and transitions pause.
   */
  readonly state: 'Connecting' | 'Disconnected' | 'Stale';
  readonly reason: string;
  /** ISO 8601 UTC. */
  readonly since: string;
}

export type TransitionListener = (entries: readonly JournalEntry[]) => void;

export interface AlarmSource {
  readonly plcId: string;
  readonly settings: AlarmTargetConfig;
  readonly journal: JournalReader;
  /** The instance path of the function block that owns acknowledgement. */
  readonly acknowledgeInstancePath: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Outstanding alarms of the last good snapshot, in slot order. */
  outstanding(): readonly AlarmReading[];
  reading(key: string): AlarmReading | undefined;
  /** Why the scope cannot be read fresh, or undefined while it can. */
  failure(): ScopeFailure | undefined;
  onTransitions(listener: TransitionListener): () => void;
  /**
   * Called when the journal restarted (a shared store that came back empty): cursors into it no longer resume,
   * so stream clients are sent the list again. Never called for a journal held in this process.
   */
  onResync(listener: () => void): () => void;
  /** Remembers who asked, so the `acknowledged` transition that follows carries their sub. */
  noteAcknowledge(key: string, sub: string): void | Promise<void>;
  forgetAcknowledge(key: string): void;
}

/** Makes the source of one monitored PLC. */
export type AlarmSourceFactory = (target: PlcTarget, settings: AlarmTargetConfig) => AlarmSource;
