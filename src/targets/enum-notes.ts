// Enum writes of an integer that names no member: the PLC takes them (they fit the base type), so they are
// written, and each one written is logged as a warning naming the symbol and the value.
import type { NonMemberSink } from '../plc/index.ts';
import type { TargetLog } from './target.ts';

interface NonMemberNote {
  symbol: string;
  value: number;
  typeName: string;
}

/** Collects the non-member values of one encode, to be reported once the write has landed. */
export class NonMemberNotes {
  readonly #notes: NonMemberNote[] = [];
  readonly sink: NonMemberSink = (symbol, value, type) => {
    this.#notes.push({ symbol, value, typeName: type.name });
  };

  /** Logs every collected value as written, on the target's log (bound to its plcId). */
  report(log: TargetLog): void {
    for (const { symbol, value, typeName } of this.#notes) {
      log.warn(
        { symbol, value, typeName },
        `${symbol}: wrote ${value}, which is no member of ${typeName} (the PLC holds it as is)`,
      );
    }
  }
}
