// Scenario test helpers: temp scenario folders, a PLC with an attached scenario, and a manual pump timer.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import {
  declareScenario,
  validateScenario,
  type AttachOptions,
  type AttachedScenario,
  type PumpTimer,
  type ScenarioDefinition,
} from '../../../src/simulator/scenario/index.ts';

/** A minimal valid scenario document; `extra` keys replace or add top-level keys. */
export function scenarioDoc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contract: 'gvl-hmi/1',
    root: 'GVL_HMI',
    parts: ['cell'],
    axes: [
      {
        id: 'cell.x',
        unit: 'mm',
        limits: { min: 0, max: 100, vmax: 50, amax: 100 },
        start: { position: 0, targetPos: 100 },
      },
    ],
    ...extra,
  };
}

/** Writes `content` (an object is written as YAML) to `<new temp dir>/machine.yaml`; returns the dir. */
export function writeScenario(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'machine.yaml'), typeof content === 'string' ? content : stringify(content));
  return dir;
}

export function definition(doc: Record<string, unknown>): ScenarioDefinition {
  const result = validateScenario(structuredClone(doc));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.scenario;
}

export interface ScenarioPlc extends AttachedScenario {
  plc: SimulatedPlc;
}

/** A PLC built only from the scenario, with the runtime attached; the PLC clock is fixed. */
export function scenarioPlc(doc: Record<string, unknown>, options: AttachOptions = {}): ScenarioPlc {
  const builder = new ProgramBuilder();
  const declared = declareScenario(builder, definition(doc));
  const plc = new SimulatedPlc(builder.build(), { clock: () => Date.UTC(2024, 4, 6, 12, 0, 0) });
  return { plc, ...declared.attach(plc, options) };
}

/** A timer the test drives: advance() fires due callbacks in order, each `lateMs` late. */
export class ManualTimer implements PumpTimer {
  #now = 0;
  #next = 1;
  readonly #pending = new Map<number, { at: number; fn: () => void }>();
  /** Extra lateness of every timer callback, like a busy event loop. */
  lateMs = 0;

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { at: this.#now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** Moves the clock forward by `ms`, firing callbacks as they come due. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#pending) if (!first || entry[1].at < first[1].at) first = entry;
      if (!first || first[1].at + this.lateMs > end) break;
      this.#pending.delete(first[0]);
      this.#now = Math.max(this.#now, first[1].at + this.lateMs);
      first[1].fn();
    }
    // A callback may have spent time (a slow scan): the clock never goes back.
    this.#now = Math.max(this.#now, end);
  }

  /** Lets a callback simulate a slow scan. */
  spend(ms: number): void {
    this.#now += ms;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }
}
