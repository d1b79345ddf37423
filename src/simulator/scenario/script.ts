// The scenario script: timed steps compiled into a cycle-ordered list the scan loop walks with a cursor.
// A step fires in scan `atCycle` (1 = the first scan after load or reset) or, for `atMs`, in the first
// scan whose simulated end time reaches it: max(1, ceil(atMs / scanMs)). With `every` (scans) or `everyMs`
// it fires again each period after that. Steps firing in the same scan run in file order.
import type { Program } from '../engine/index.ts';
import { encode } from '../engine/index.ts';
import { resolveScriptPath } from './hmi-layout.ts';
import type { EtherCatAction } from '../ethercat/system.ts';
import { etherCatAction, isProblem } from './ethercat-validate.ts';
import type { EtherCatSectionDefinition, ScriptStepDefinition } from './schema.ts';

type ScriptAction =
  | { kind: 'set'; path: string; offset: number; bytes: Buffer; revs: number }
  | { kind: 'raise'; key: string }
  | { kind: 'clear'; key: string }
  | { kind: 'fail'; message: string }
  | { kind: 'ethercat'; action: EtherCatAction };

export interface CompiledStep {
  /** The first scan it fires in. */
  readonly cycle: number;
  /** Repeat period in scans; 0 fires once. */
  readonly period: number;
  /** Position in the file, which orders steps of the same scan. */
  readonly order: number;
  readonly action: ScriptAction;
}

/** The scan in which a step fires. */
export function stepCycle(step: Pick<ScriptStepDefinition, 'atCycle' | 'atMs'>, scanMs: number): number {
  if (step.atCycle !== undefined) return step.atCycle;
  return Math.max(1, Math.ceil((step.atMs ?? 0) / scanMs));
}

function action(
  step: ScriptStepDefinition,
  program: Program,
  root: string,
  maxAxes: number,
  ethercat: EtherCatSectionDefinition | undefined,
): ScriptAction {
  if (step.ethercat) {
    const a = etherCatAction(step.ethercat, ethercat);
    if (isProblem(a)) throw new Error(`script ethercat step: ${a.message}`);
    return { kind: 'ethercat', action: a };
  }
  if (step.set) {
    const target = resolveScriptPath(step.set.path, maxAxes);
    if (typeof target === 'string') throw new Error(`script path ${step.set.path}: ${target}`);
    const r = program.resolve(`${root}.${step.set.path}`);
    return {
      kind: 'set',
      path: r.path,
      offset: r.offset,
      bytes: encode(r.type, step.set.value, r.path),
      revs: target.field.revs,
    };
  }
  if (step.raise !== undefined) return { kind: 'raise', key: step.raise };
  if (step.clear !== undefined) return { kind: 'clear', key: step.clear };
  return { kind: 'fail', message: step.fail ?? 'Injected scan failure' };
}

/** The repeat period in scans (0: once); `everyMs` rounds to whole scans, at least one. */
export function stepPeriod(step: Pick<ScriptStepDefinition, 'every' | 'everyMs'>, scanMs: number): number {
  if (step.every !== undefined) return step.every;
  if (step.everyMs !== undefined) return Math.max(1, Math.round(step.everyMs / scanMs));
  return 0;
}

/** Validated steps -> actions with offsets and encoded bytes, sorted by first scan, then file order. */
export function compileScript(
  steps: readonly ScriptStepDefinition[],
  program: Program,
  root: string,
  scanMs: number,
  maxAxes: number,
  ethercat?: EtherCatSectionDefinition,
): CompiledStep[] {
  return steps
    .map((s, i) => ({
      cycle: stepCycle(s, scanMs),
      period: stepPeriod(s, scanMs),
      order: i,
      action: action(s, program, root, maxAxes, ethercat),
    }))
    .sort((a, b) => a.cycle - b.cycle || a.order - b.order);
}
