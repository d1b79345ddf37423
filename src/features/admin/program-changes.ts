// The last program changes of each Real PLC (downloads, online changes) with what they did to the symbols the
// gateway serves: kept in a bounded ring per PLC (ProgramChanges.Length) and each one written to the audit trail.
import type { AuditTrail } from '../../audit/trail.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import type { PlcTarget, ProgramChange } from '../../targets/target.ts';

/** One kept change as the admin route answers it. */
export interface ProgramChangeRecord {
  at: string;
  kind: ProgramChange['kind'];
  oldSymbolVersion: number | null;
  newSymbolVersion: number | null;
  affectedCount: number;
  counts: ProgramChange['counts'];
  affected: ProgramChange['affected'];
  /** Cluster mode: the replica that saw it (each replica follows the PLC over its own connection). */
  replica?: string;
}

/** The `sub` of the audit records: no caller made the change, the PLC's program did. */
const programChangeSubject = 'plc';

/** The audit record names this many affected symbols at most (the route lists them all, to its own bound). */
const auditedSymbols = 40;

export interface ProgramChangeLogOptions {
  registry: TargetRegistry;
  audit: AuditTrail;
  /** Changes kept per PLC. */
  length: number;
  replicaId?: string | undefined;
  log: { info(fields: object, message: string): void };
}

export class ProgramChangeLog {
  readonly #options: ProgramChangeLogOptions;
  readonly #rings = new Map<string, ProgramChangeRecord[]>();
  readonly #stops: Array<() => void> = [];

  constructor(options: ProgramChangeLogOptions) {
    this.#options = options;
    for (const target of options.registry.list()) {
      const stop = target.onProgramChange?.((change) => void this.#record(target, change));
      if (stop) this.#stops.push(stop);
    }
  }

  /** The kept changes of `plcId`, newest first (none for a Simulated target). */
  list(plcId: string): ProgramChangeRecord[] {
    return [...(this.#rings.get(plcId.toLowerCase()) ?? [])].reverse();
  }

  close(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }

  async #record(target: PlcTarget, change: ProgramChange): Promise<void> {
    const { replicaId, length, audit, log } = this.#options;
    const record: ProgramChangeRecord = {
      at: change.at.toISOString(),
      kind: change.kind,
      oldSymbolVersion: change.oldSymbolVersion,
      newSymbolVersion: change.newSymbolVersion,
      affectedCount: change.affectedCount,
      counts: change.counts,
      affected: change.affected,
      ...(replicaId === undefined ? {} : { replica: replicaId }),
    };
    const key = target.id.toLowerCase();
    let ring = this.#rings.get(key);
    if (ring === undefined) {
      ring = [];
      this.#rings.set(key, ring);
    }
    ring.push(record);
    if (ring.length > length) ring.splice(0, ring.length - length);
    const counts = change.counts;
    log.info(
      {
        plcId: target.id,
        kind: change.kind,
        from: change.oldSymbolVersion,
        to: change.newSymbolVersion,
        ...counts,
      },
      'PLC program changed',
    );
    await audit.record({
      sub: programChangeSubject,
      plcId: target.id,
      action: 'plc.program-change',
      target: describe(change),
      oldValue: { symbolVersion: change.oldSymbolVersion },
      newValue: {
        kind: change.kind,
        symbolVersion: change.newSymbolVersion,
        affectedCount: change.affectedCount,
        ...counts,
        affected: change.affected
          .slice(0, auditedSymbols)
          .map((a) => ({ symbol: a.symbol, impact: a.impact })),
        ...(replicaId === undefined ? {} : { replica: replicaId }),
      },
    });
  }
}

function describe(change: ProgramChange): string {
  const version = (v: number | null) => (v === null ? '?' : String(v));
  return change.kind === 'download'
    ? `download: symbol version ${version(change.oldSymbolVersion)} -> ${version(change.newSymbolVersion)}`
    : `online change at symbol version ${version(change.newSymbolVersion)}`;
}
