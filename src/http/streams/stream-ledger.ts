// The port through which replicas count and list each other's streams (cluster mode). The registry keeps its own
// streams; a ledger adds everyone else's, enforces ConnectionLimits over all of them and ends remote streams.
import type { ConnectionLimitSettings, StreamIdentity, StreamRow } from './stream-rows.ts';

/** What the registry lets its ledger see and do. */
export interface LocalStreams {
  rows(): StreamRow[];
  terminate(id: string): Promise<boolean>;
}

export interface StreamLedger {
  readonly replicaId: string;
  attach(local: LocalStreams): void;
  /**
   * Counts a new stream against the limits of every replica at once; throws 429 CONNECTION_LIMIT. 'unavailable'
   * when the shared store cannot be reached: the registry then applies this replica's own count.
   */
  admit(
    id: string,
    identity: StreamIdentity,
    limits: ConnectionLimitSettings,
  ): Promise<'admitted' | 'unavailable'>;
  /** Frees a stream's place; resolves once the store has it (or could not be reached). */
  release(id: string, user: string): Promise<void>;
  /** Streams served by the other live replicas. */
  others(): Promise<StreamRow[]>;
  /**
   * Ends a stream another replica serves; its row, or undefined when no live replica has it. `authorize` sees the
   * row before the stream is ended and throws to refuse.
   */
  terminateElsewhere(id: string, authorize: (row: StreamRow) => void): Promise<StreamRow | undefined>;
}
