// Drives a scenario runtime: the Stopped/Running/Paused/Faulted state, inline steps, the real-time pump
// and reset. `elapsedMs` is simulated time, cycleCount x scanMs, in stepping and running alike.
import { AppError } from '../../errors.ts';
import { Pump, realTimer, type PumpTimer } from './pump.ts';
import { decide, type SimulationOp, type SimulationStateName } from './transitions.ts';

export interface SimulationSnapshot {
  state: SimulationStateName;
  cycleCount: number;
  elapsedMs: number;
  scanMs: number;
  error: string | null;
}

/** What the controller drives: one scan, and the scenario's re-seed. */
export interface ScanRuntime {
  /** Runs scan `n` (1-based since load or reset); throws when the scan fails. */
  cycle(n: number): void;
  /** After the scans of a step: every watch checks the memory the step ended on (see step()). */
  settle(): void;
  reseed(): void;
}

export interface SimulationOptions {
  scanMs: number;
  /** ScenarioAutoStart: Running at load and after every reset. */
  autoStart?: boolean;
  timer?: PumpTimer;
  /** Told about a scan failure of the real-time pump (no request is there to fail). */
  onFault?: (error: Error) => void;
}

export class ScenarioSimulation {
  readonly #runtime: ScanRuntime;
  readonly #scanMs: number;
  readonly #autoStart: boolean;
  readonly #onFault: ((error: Error) => void) | undefined;
  readonly #pump: Pump;
  #state: SimulationStateName = 'Stopped';
  #cycles = 0;
  #error: string | null = null;
  /** The PLC runtime is not in Run: no scan runs, whatever the simulation state says. */
  #halted = false;

  constructor(runtime: ScanRuntime, options: SimulationOptions) {
    this.#runtime = runtime;
    this.#scanMs = options.scanMs;
    this.#autoStart = options.autoStart ?? false;
    this.#onFault = options.onFault;
    this.#pump = new Pump(this.#scanMs, options.timer ?? realTimer, () => this.#pumpTick());
    if (this.#autoStart) this.#start();
  }

  state(): SimulationSnapshot {
    return {
      state: this.#state,
      cycleCount: this.#cycles,
      elapsedMs: this.#cycles * this.#scanMs,
      scanMs: this.#scanMs,
      error: this.#error,
    };
  }

  /** Runs exactly `cycles` scans inline; INTERNAL_ERROR (and Faulted) when one throws. */
  step(cycles: number): SimulationSnapshot {
    if (!Number.isSafeInteger(cycles) || cycles < 1) {
      throw new AppError('VALIDATION_ERROR', 'cycles must be a positive integer.');
    }
    this.#gate('step');
    if (this.#halted) {
      throw new AppError(
        'SIMULATION_CONFLICT',
        'The PLC runtime is stopped (ADS state Stop): no scan runs until it is started again.',
      );
    }
    try {
      for (let i = 0; i < cycles; i++) {
        const failure = this.#scan();
        if (failure) throw new AppError('INTERNAL_ERROR', failure.message);
      }
    } finally {
      // The scans ran back to back in almost no PLC time, so on-change watches with a cycle time checked at
      // most the first of them; a PLC would notify the values it ends on. Also after a failed scan: the
      // scans before it happened.
      this.#runtime.settle();
    }
    return this.state();
  }

  run(): SimulationSnapshot {
    if (this.#gate('run') === 'start') this.#start();
    return this.state();
  }

  pause(): SimulationSnapshot {
    if (this.#gate('pause') === 'pause') {
      this.#pump.stop();
      this.#state = 'Paused';
    }
    return this.state();
  }

  /** Stops the pump, re-seeds the scenario, clears a fault and rewinds the counts; stRev keeps counting. */
  reset(): SimulationSnapshot {
    this.#pump.stop();
    this.#runtime.reseed();
    this.#cycles = 0;
    this.#error = null;
    this.#state = 'Stopped';
    if (this.#autoStart) this.#start();
    return this.state();
  }

  /**
   * The PLC runtime left Run (true) or came back (false). Like a PLC task, the scan stops and resumes; a
   * Running simulation stays Running and picks up where it stopped.
   */
  setHalted(halted: boolean): void {
    if (halted === this.#halted) return;
    this.#halted = halted;
    if (halted) this.#pump.stop();
    else if (this.#state === 'Running') this.#pump.start();
  }

  /** Stops the pump for good (target shutdown). */
  close(): void {
    this.#pump.stop();
  }

  #gate(op: SimulationOp): string {
    const d = decide(this.#state, op);
    if (d.kind === 'conflict') throw new AppError('SIMULATION_CONFLICT', d.message);
    return d.kind;
  }

  #start(): void {
    this.#state = 'Running';
    if (!this.#halted) this.#pump.start();
  }

  /** One scan; on failure the simulation is Faulted and the error is returned. */
  #scan(): Error | null {
    try {
      this.#runtime.cycle(this.#cycles + 1);
      this.#cycles++;
      return null;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const error = new Error(`Scan cycle ${this.#cycles + 1} failed: ${why}`, { cause: err });
      this.#pump.stop();
      this.#state = 'Faulted';
      this.#error = error.message;
      return error;
    }
  }

  #pumpTick(): boolean {
    const failure = this.#scan();
    if (failure) this.#onFault?.(failure);
    return failure === null;
  }
}
