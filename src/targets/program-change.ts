// What a change of the PLC's program (a download or an online change) did to the symbols the gateway serves:
// the port's report of it, and the notice a subscriber of a symbol that changed type receives.

/** What happened to one symbol the gateway held when the program changed. */
export type SymbolImpact = 'vanished' | 'typeChanged' | 'moved';

/** Where and as what a symbol lived in one program. */
export interface SymbolPlacement {
  type: string;
  /** Bytes. */
  size: number;
  indexGroup: number;
  indexOffset: number;
}

export interface AffectedSymbol {
  /** As the PLC declared it in the old program. */
  symbol: string;
  impact: SymbolImpact;
  before: SymbolPlacement;
  /** Absent when it vanished. */
  after?: SymbolPlacement;
}

/** `download`: the symbol version changed (seen live, or at reconnecting); `onlineChange`: it did not. */
export type ProgramChangeKind = 'download' | 'onlineChange';

export interface ProgramChange {
  kind: ProgramChangeKind;
  /** When the gateway finished re-resolving its symbols. */
  at: Date;
  /** Null when not known (the first connection of the target). */
  oldSymbolVersion: number | null;
  newSymbolVersion: number | null;
  /** Subscribed symbols (stream clients, history, MQTT, alarms) that vanished, changed type or size, or moved. */
  affected: AffectedSymbol[];
  /** Affected symbols in all; `affected` keeps at most ProgramChanges.MaxSymbolsPerChange of them. */
  affectedCount: number;
  /** Affected symbols in all by what happened to them. */
  counts: Record<SymbolImpact, number>;
}

export type ProgramChangeListener = (change: ProgramChange) => void;

/**
 * A subscribed symbol now has another type or size: the subscription goes on, its values from now on in the new
 * type (the first of them follows the notice).
 */
export interface TypeChangedNotice {
  symbol: string;
  type: string;
  size: number;
  previousType: string;
  previousSize: number;
}
