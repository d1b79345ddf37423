// What a stream is to the registry and its ledger: who opened it, its row in the admin listing, the limits.
export interface StreamIdentity {
  /** What the stream is, e.g. `notifications.sse`; the label of its metrics. */
  readonly kind: string;
  readonly plcId: string | null;
  /** The JWT `sub`. */
  readonly user: string;
  /** The client's address. */
  readonly remote: string;
}

export interface StreamRow extends StreamIdentity {
  readonly id: string;
  readonly openedAt: string;
  readonly symbols: string[];
  readonly sent: number;
  readonly dropped: number;
  /** The replica serving the stream (cluster mode only). */
  readonly replica?: string;
  /** What the feature serving the stream adds to its row (notification streams: their subscription options). */
  readonly details?: StreamDetails;
}

/** A feature's own facts about a stream, JSON-safe; the registry carries them without reading them. */
export type StreamDetails = Readonly<Record<string, unknown>>;

export interface ConnectionLimitSettings {
  readonly MaxPerUser: number;
  readonly MaxTotal: number;
}
