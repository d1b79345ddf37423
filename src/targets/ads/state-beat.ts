// The connection check of every ADS session in the process, on one timer per check interval. ads-client checks
// each connection on a timer of its own, re-armed when its answer comes, so twenty PLCs wake the gateway forty
// times a second while it has nothing else to do; here all checks go out in the same wake-up, and the PLCs'
// answers (one simulator, or PLCs on one network) tend to arrive together.
import { performance } from 'node:perf_hooks';
import { adsStateNames } from '../../plc/ads/index.ts';
import type { Session } from './link-session.ts';

interface SystemState {
  adsState: number;
  restartIndex?: number;
}

type Check = () => Promise<void>;

const run = adsStateNames.indexOf('Run');

class Beat {
  readonly checks = new Set<Check>();
  readonly #running = new Set<Check>();
  readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => this.#tick(), intervalMs);
    // Sessions keep the process alive through their sockets, not through their checks.
    this.timer.unref();
  }

  #tick(): void {
    for (const check of this.checks) {
      // A check still waiting for its answer (a slow or silent PLC) is not sent twice.
      if (this.#running.has(check)) continue;
      this.#running.add(check);
      void check().finally(() => this.#running.delete(check));
    }
  }
}

const beats = new Map<number, Beat>();

function join(intervalMs: number, check: Check): () => void {
  let beat = beats.get(intervalMs);
  if (beat === undefined) {
    beat = new Beat(intervalMs);
    beats.set(intervalMs, beat);
  }
  beat.checks.add(check);
  return () => {
    beat.checks.delete(check);
    if (beat.checks.size > 0) return;
    clearInterval(beat.timer);
    beats.delete(intervalMs);
  };
}

export interface CheckSettings {
  intervalMs: number;
  /** Failed checks for this long end the session (a peer gone silent without closing the socket). */
  downDelayMs: number;
}

/**
 * Checks `session` on the shared beat until it ends: a PLC that leaves Run, a TwinCAT system service that
 * restarted (its restart index moved), or reads of the system state failing for `downDelayMs` end the session,
 * and the link reconnects. The same rules as ads-client's own check, which the link turns off.
 */
export function checkOnBeat(session: Session, settings: CheckSettings): void {
  const client = session.client;
  let last = client.metaData.tcSystemState as SystemState | undefined;
  let downSince: number | undefined;
  const leave = join(settings.intervalMs, async () => {
    let state: SystemState;
    try {
      // The extended state (system service port) carries the restart index when the target has it.
      state =
        last?.restartIndex !== undefined
          ? await client.readTcSystemExtendedState()
          : await client.readTcSystemState();
    } catch {
      downSince ??= performance.now();
      if (performance.now() - downSince >= settings.downDelayMs) session.end();
      return;
    }
    downSince = undefined;
    const restarted = last?.restartIndex !== undefined && state.restartIndex !== last.restartIndex;
    last = state;
    if (state.adsState !== run || restarted) session.end();
  });
  void session.ended.then(leave);
}
