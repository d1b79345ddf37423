// The gvl-hmi/1 scan: script steps, machine, axis kinematics and revision counters, straight on PLC
// memory. Commands are whatever memory holds at the start of a scan, however it got there.
import type { SimulatedPlc } from '../engine/index.ts';
import { AlarmSlots } from './alarm-slots.ts';
import { areasTouched, bindHmi, type HmiBindings } from './bindings.ts';
import type { HmiDeclaration } from './declare.ts';
import { stepAxis, type AxisMotion } from './kinematics.ts';
import { Rev } from './hmi-layout.ts';
import { RevisionCounters } from './revisions.ts';
import type { ScenarioDefinition } from './schema.ts';
import { compileScript, type CompiledStep } from './script.ts';

/** A `fail` step of the script: the scan throws it so the Faulted path can be exercised. */
class ScriptFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptFailure';
  }
}

const changed = (a: number, b: number) => a !== b && (a === a || b === b);

export class HmiRuntime {
  readonly #plc: SimulatedPlc;
  readonly #scenario: ScenarioDefinition;
  readonly #declaration: HmiDeclaration;
  readonly #dt: number;
  readonly #motion: AxisMotion = { position: 0, velocity: 0 };
  readonly #unsubscribe: Array<() => void> = [];
  #b!: HmiBindings;
  #mem!: Buffer;
  #view!: DataView;
  #counters!: RevisionCounters;
  #alarms!: AlarmSlots;
  #once!: CompiledStep[];
  #repeats!: CompiledStep[];
  readonly #fired: CompiledStep[] = [];
  #seedOffsets!: number[];
  #headerSeed = -1;
  #cursor = 0;
  #clockBase = 0;
  #detached: string | null = null;

  constructor(plc: SimulatedPlc, scenario: ScenarioDefinition, declaration: HmiDeclaration) {
    this.#plc = plc;
    this.#scenario = scenario;
    this.#declaration = declaration;
    this.#dt = scenario.scanMs / 1000;
    this.#bind(true);
    this.#clockBase = plc.now();
    this.#unsubscribe.push(
      plc.onExternalWrite((offset, size) => this.#externalWrite(offset, size)),
      plc.onLoad(() => this.#bind(false)),
    );
  }

  #bind(first: boolean): void {
    const program = this.#plc.program;
    try {
      this.#b = bindHmi(program, this.#declaration.root, this.#declaration.alarmSlots);
      const script = compileScript(
        this.#scenario.script,
        program,
        this.#declaration.root,
        this.#scenario.scanMs,
        this.#scenario.maxAxes,
        this.#scenario.ethercat,
      );
      this.#once = script.filter((s) => s.period === 0);
      this.#repeats = script.filter((s) => s.period > 0);
    } catch (err) {
      if (first) throw err;
      this.#detached = `The downloaded program no longer has the ${this.#declaration.root} layout.`;
      return;
    }
    this.#detached = null;
    this.#seedOffsets = this.#declaration.seeds.map((s) => program.resolve(s.symbol).offset);
    this.#alarms = new AlarmSlots(this.#b.alarms, this.#scenario.alarms);
    this.#headerSeed = this.#declaration.seeds.findIndex(
      (s) => s.symbol === `${this.#declaration.root}.stHeader`,
    );
    this.#refreshMemory();
    if (first) this.#counters = new RevisionCounters(this.#b.revisions.members);
    else {
      this.#counters.rebind(this.#b.revisions.members);
      this.#counters.restore(this.#view);
    }
  }

  #refreshMemory(): void {
    const mem = this.#plc.memory;
    if (mem === this.#mem) return;
    this.#mem = mem;
    this.#view = new DataView(mem.buffer, mem.byteOffset, mem.length);
  }

  /** Runs scan `n` (1-based since load or reset); throws when the script injects a failure. */
  cycle(n: number): void {
    if (this.#detached) throw new Error(this.#detached);
    this.#refreshMemory();
    let revs = 0;
    const once = this.#once;
    if (this.#repeats.length === 0) {
      while (this.#cursor < once.length) {
        const step = once[this.#cursor];
        if (!step || step.cycle > n) break;
        this.#cursor++;
        revs |= this.#apply(step, n);
      }
    } else {
      revs |= this.#fireWithRepeats(n);
    }
    revs |= this.#machine() | this.#axes();
    if (revs !== 0) this.#counters.bump(revs, this.#view);
    this.#plc.sample();
  }

  /** A step's last scan is done: every watch that differs reports now, whatever its cycle time. */
  settle(): void {
    this.#plc.sample({ immediate: true });
  }

  /** Due one-shot and repeating steps, merged into file order. */
  #fireWithRepeats(n: number): number {
    const fired = this.#fired;
    fired.length = 0;
    while (this.#cursor < this.#once.length) {
      const step = this.#once[this.#cursor];
      if (!step || step.cycle > n) break;
      this.#cursor++;
      fired.push(step);
    }
    for (const r of this.#repeats) if (n >= r.cycle && (n - r.cycle) % r.period === 0) fired.push(r);
    if (fired.length > 1) fired.sort((a, b) => a.order - b.order);
    let revs = 0;
    for (const step of fired) revs |= this.#apply(step, n);
    return revs;
  }

  #apply(step: CompiledStep, n: number): number {
    const a = step.action;
    switch (a.kind) {
      case 'set': {
        const same = this.#mem.compare(a.bytes, 0, a.bytes.length, a.offset, a.offset + a.bytes.length) === 0;
        a.bytes.copy(this.#mem, a.offset);
        return same ? 0 : a.revs;
      }
      case 'raise':
        return this.#alarms.raise(this.#mem, this.#view, a.key, this.#clockBase + n * this.#scenario.scanMs)
          ? Rev.alarms
          : 0;
      case 'clear':
        return this.#alarms.clear(this.#mem, a.key) ? Rev.alarms : 0;
      case 'fail':
        throw new ScriptFailure(a.message);
      case 'ethercat':
        this.#plc.ethercat?.apply(a.action);
        return 0;
    }
  }

  /** rSpeed follows rSpeedSetpoint while the machine is Running (nState 0) and is 0 otherwise. */
  #machine(): number {
    const view = this.#view;
    const m = this.#b.machine;
    const f = m.fields;
    const state = view.getInt16(m.start + (f.nState?.offset ?? 0), true);
    const speedAt = m.start + (f.rSpeed?.offset ?? 0);
    const want = state === 0 ? view.getFloat32(m.start + (f.rSpeedSetpoint?.offset ?? 0), true) : 0;
    if (!changed(view.getFloat32(speedAt, true), want)) return 0;
    view.setFloat32(speedAt, want, true);
    return Rev.machine | Rev.speed;
  }

  #axes(): number {
    const view = this.#view;
    const { start, stride, fields: f } = this.#b.axes;
    const oPos = f.rPosition?.offset ?? 0;
    const oTarget = f.rTargetPos?.offset ?? 0;
    const oVel = f.rVelocity?.offset ?? 0;
    const oMin = f.rMin?.offset ?? 0;
    const oMax = f.rMax?.offset ?? 0;
    const oVmax = f.rVmax?.offset ?? 0;
    const oAmax = f.rAmax?.offset ?? 0;
    const oEnabled = f.bEnabled?.offset ?? 0;
    const oMoving = f.bMoving?.offset ?? 0;
    const count = this.#scenario.axes.length;
    const dt = this.#dt;
    const out = this.#motion;
    let moved = false;
    for (let i = 0, b = start; i < count; i++, b += stride) {
      const pos = view.getFloat64(b + oPos, true);
      const vel = view.getFloat64(b + oVel, true);
      stepAxis(
        pos,
        vel,
        view.getFloat64(b + oTarget, true),
        view.getFloat64(b + oMin, true),
        view.getFloat64(b + oMax, true),
        view.getFloat64(b + oVmax, true),
        view.getFloat64(b + oAmax, true),
        view.getUint8(b + oEnabled) !== 0,
        dt,
        out,
      );
      if (changed(pos, out.position)) {
        view.setFloat64(b + oPos, out.position, true);
        moved = true;
      }
      if (changed(vel, out.velocity)) {
        view.setFloat64(b + oVel, out.velocity, true);
        moved = true;
      }
      const moving = out.velocity !== 0 ? 1 : 0;
      if (view.getUint8(b + oMoving) !== moving) {
        view.setUint8(b + oMoving, moving);
        moved = true;
      }
    }
    return moved ? Rev.axesMotion : 0;
  }

  /** Writes the scenario seeds back (not stRev), rewinds the script and advances the changed areas. */
  reseed(): void {
    if (this.#detached) return;
    this.#refreshMemory();
    const mem = this.#mem;
    let revs = 0;
    this.#declaration.seeds.forEach((seed, i) => {
      const at = this.#seedOffsets[i] ?? 0;
      for (let j = 0; j < seed.bytes.length; j++) {
        if (mem[at + j] === seed.bytes[j]) continue;
        let end = j + 1;
        while (end < seed.bytes.length && mem[at + end] !== seed.bytes[end]) end++;
        revs |= areasTouched(this.#b, at + j, end - j);
        j = end;
      }
      seed.bytes.copy(mem, at);
    });
    if (revs !== 0) this.#counters.bump(revs, this.#view);
    this.#cursor = 0;
    this.#clockBase = this.#plc.now();
    this.#plc.ethercat?.reset();
    // A reset is an operator action like a write: subscribers hear it now, not at their next cycle.
    this.#plc.sample({ immediate: true });
  }

  /**
   * `fbAlarms#AcknowledgeAlarm`: TRUE when an outstanding entry with this key awaited acknowledgement.
   * Called by the method implementation with the memory the call runs on.
   */
  acknowledge(sKey: string): boolean {
    if (this.#detached) return false;
    this.#refreshMemory();
    if (!this.#alarms.acknowledge(this.#mem, sKey)) return false;
    this.#counters.bump(Rev.alarms, this.#view);
    return true;
  }

  #externalWrite(offset: number, size: number): void {
    if (this.#detached) return;
    this.#refreshMemory();
    const b = this.#b;
    const end = offset + size;
    // Header and counters are derived by the runtime: a write from outside is undone at once.
    if (offset < b.revisions.end && end > b.revisions.start) this.#counters.restore(this.#view);
    let revs = areasTouched(b, offset, size);
    if ((revs & Rev.header) !== 0) {
      const seed = this.#declaration.seeds[this.#headerSeed];
      if (seed) seed.bytes.copy(this.#mem, this.#seedOffsets[this.#headerSeed] ?? 0);
      revs &= ~Rev.header;
    }
    if (revs !== 0) this.#counters.bump(revs, this.#view);
  }

  /** Stops listening to the PLC. */
  close(): void {
    for (const off of this.#unsubscribe.splice(0)) off();
  }
}
