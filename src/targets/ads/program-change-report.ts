// The report of one program change on an ADS target: what re-resolving the held subscriptions found for each
// symbol (vanished, changed type or size, moved), bounded, and the listeners it is handed to once complete.
import type {
  SymbolImpact,
  AffectedSymbol,
  ProgramChange,
  ProgramChangeKind,
  ProgramChangeListener,
  SymbolPlacement,
} from '../program-change.ts';
import type { SymbolAddress } from './symbol-table.ts';

/** Where the subscription manager tells what it found while re-resolving its symbols. */
export interface ImpactSink {
  vanished(before: SymbolAddress): void;
  retyped(before: SymbolAddress, after: SymbolAddress): void;
  moved(before: SymbolAddress, after: SymbolAddress): void;
}

function placement(a: SymbolAddress): SymbolPlacement {
  return { type: a.type.name, size: a.size, indexGroup: a.indexGroup, indexOffset: a.indexOffset };
}

export class ProgramChangeReport implements ImpactSink {
  readonly #kind: ProgramChangeKind;
  readonly #oldVersion: number | null;
  readonly #newVersion: number | null;
  readonly #maxSymbols: number;
  readonly #affected: AffectedSymbol[] = [];
  readonly #counts: Record<SymbolImpact, number> = { vanished: 0, typeChanged: 0, moved: 0 };
  #count = 0;

  constructor(
    kind: ProgramChangeKind,
    versions: { old: number | undefined; new: number | undefined },
    maxSymbols: number,
  ) {
    this.#kind = kind;
    this.#oldVersion = versions.old ?? null;
    this.#newVersion = versions.new ?? null;
    this.#maxSymbols = maxSymbols;
  }

  vanished(before: SymbolAddress): void {
    this.#add({ symbol: before.path, impact: 'vanished', before: placement(before) });
  }

  retyped(before: SymbolAddress, after: SymbolAddress): void {
    this.#add({
      symbol: before.path,
      impact: 'typeChanged',
      before: placement(before),
      after: placement(after),
    });
  }

  moved(before: SymbolAddress, after: SymbolAddress): void {
    this.#add({ symbol: before.path, impact: 'moved', before: placement(before), after: placement(after) });
  }

  /** The finished report, the affected symbols sorted by path as the PLC declared them. */
  finish(at: Date): ProgramChange {
    const affected = [...this.#affected].sort((a, b) =>
      a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0,
    );
    return {
      kind: this.#kind,
      at,
      oldSymbolVersion: this.#oldVersion,
      newSymbolVersion: this.#newVersion,
      affected,
      affectedCount: this.#count,
      counts: { ...this.#counts },
    };
  }

  #add(a: AffectedSymbol): void {
    this.#count++;
    this.#counts[a.impact]++;
    // Beyond the bound only counted: a download that removes thousands of held symbols stays one small record.
    if (this.#affected.length < this.#maxSymbols) this.#affected.push(a);
  }
}

/** The target's program-change listeners; one that throws does not keep the others from hearing. */
export class ProgramChangeListeners {
  readonly #listeners = new Set<ProgramChangeListener>();

  on(listener: ProgramChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(change: ProgramChange): void {
    for (const l of [...this.#listeners]) {
      try {
        l(change);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
