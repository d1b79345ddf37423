// Device notifications: on-change (engine watches sampled by the server's timer) and cyclic, with
// max-delay batching, per-client limits and back-off for slow readers; frames go out from the
// address the client registered them on.

import type { SimulatedPlc, Watch } from '../engine/index.ts';
import {
  encodeDeviceNotification,
  type NotificationRequest,
  type NotificationStamp,
} from './protocol/commands.ts';
import { toFileTime, TransmissionMode, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { formatAmsAddress, type AmsAddress } from './protocol/net-id.ts';
import type { ClientSession, RequestContext } from './client-session.ts';

/** A DeleteNotification for a handle this client does not hold (or a service that never gives any). */
export function invalidNotificationHandle(handle: number): AdsError {
  return new AdsError(AdsErrorCode.NotificationHandleInvalid, `Notification handle ${handle} is not valid`);
}

export type NotificationTarget =
  { kind: 'memory'; offset: number; size: number } | { kind: 'symbolVersion' } | { kind: 'state' };

export interface NotificationHubOptions {
  /** Period of the sampling timer in ms: the finest cycle time a notification gets. */
  tickMs: number;
  maxPerClient: number;
  /** Above this many unsent socket bytes a client's samples are coalesced (latest value per handle). */
  maxBufferedBytes: number;
  /** Current runtime state as sent for index group 0xF100. */
  stateBytes: () => Buffer;
}

export interface NotificationCounters {
  active: number;
  samplesSent: number;
  framesSent: number;
  samplesDropped: number;
  /** AddNotification requests refused with 1814 because the client held maxPerClient already. */
  refused: number;
}

interface Notification {
  handle: number;
  session: ClientSession;
  target: NotificationTarget;
  cyclic: boolean;
  cycleMs: number;
  maxDelayMs: number;
  server: AmsAddress;
  client: AmsAddress;
  watch: Watch | undefined;
  nextDue: number;
  /** False once a program download moved the memory it pointed at. */
  active: boolean;
}

interface Pending {
  n: Notification;
  data: Buffer;
  time: number;
  deadline: number;
}

/** Samples waiting for one client before older samples of the same handle are dropped. */
const MAX_PENDING_SAMPLES = 100_000;
/** Samples per DeviceNotification frame, so one frame stays a reasonable size. */
const MAX_SAMPLES_PER_FRAME = 2000;

export class NotificationHub {
  readonly #byHandle = new Map<number, Notification>();
  readonly #bySession = new Map<ClientSession, Set<Notification>>();
  readonly #cyclic = new Set<Notification>();
  readonly #pending = new Map<ClientSession, Pending[]>();
  readonly #counters = new Map<ClientSession, NotificationCounters>();
  readonly #unsubscribe: Array<() => void>;
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;
  #nextHandle = 1;

  constructor(
    private readonly plc: SimulatedPlc,
    private readonly options: NotificationHubOptions,
  ) {
    this.#unsubscribe = [
      plc.onLoad((_program, version) => this.#onLoad(version)),
      plc.onStateChange(() => this.#broadcast('state', this.options.stateBytes())),
    ];
  }

  get size(): number {
    return this.#byHandle.size;
  }

  counters(session: ClientSession): NotificationCounters {
    let c = this.#counters.get(session);
    if (!c) {
      c = { active: 0, samplesSent: 0, framesSent: 0, samplesDropped: 0, refused: 0 };
      this.#counters.set(session, c);
    }
    c.active = this.#bySession.get(session)?.size ?? 0;
    return c;
  }

  add(ctx: RequestContext, request: NotificationRequest, target: NotificationTarget): number {
    const mode = request.transmissionMode;
    if (mode !== TransmissionMode.Cyclic && mode !== TransmissionMode.OnChange) {
      throw new AdsError(AdsErrorCode.TransModeNotSupported, `Transmission mode ${mode} is not supported`);
    }
    const own = this.#bySession.get(ctx.session) ?? new Set<Notification>();
    if (own.size >= this.options.maxPerClient) {
      this.counters(ctx.session).refused++;
      throw new AdsError(
        AdsErrorCode.NoMoreHandles,
        `No more than ${this.options.maxPerClient} notifications per client`,
      );
    }
    const now = this.plc.now();
    const cycleMs = Math.max(request.cycleTime / 10000, this.options.tickMs);
    const n: Notification = {
      handle: this.#nextHandle++,
      session: ctx.session,
      target,
      cyclic: mode === TransmissionMode.Cyclic,
      cycleMs,
      maxDelayMs: request.maxDelay / 10000,
      server: ctx.header.target,
      client: ctx.header.source,
      watch: undefined,
      nextDue: now + cycleMs,
      active: true,
    };
    if (target.kind === 'memory' && !n.cyclic) {
      n.watch = this.plc.watch(
        { offset: target.offset, size: target.size },
        (change) => this.#enqueue(n, change.data, change.time),
        { cycleTimeMs: request.cycleTime / 10000, onInvalidated: () => (n.active = false) },
      );
    }
    if (n.cyclic) this.#cyclic.add(n);
    own.add(n);
    this.#bySession.set(ctx.session, own);
    this.#byHandle.set(n.handle, n);
    // TwinCAT sends the current value right after registration, in both modes.
    this.#enqueue(n, this.#current(n), now, true);
    this.#ensureTimer();
    return n.handle;
  }

  delete(session: ClientSession, handle: number): void {
    const n = this.#byHandle.get(handle);
    if (!n || n.session !== session) {
      throw invalidNotificationHandle(handle);
    }
    this.#remove(n);
    const pending = this.#pending.get(session);
    if (pending)
      this.#pending.set(
        session,
        pending.filter((p) => p.n !== n),
      );
  }

  /** Releases everything a disconnected client held. */
  dropSession(session: ClientSession): void {
    for (const n of this.#bySession.get(session) ?? []) this.#remove(n);
    this.#bySession.delete(session);
    this.#pending.delete(session);
    this.#counters.delete(session);
  }

  close(): void {
    for (const u of this.#unsubscribe) u();
    for (const n of [...this.#byHandle.values()]) this.#remove(n);
    this.#pending.clear();
    this.#stopTimer();
  }

  #remove(n: Notification): void {
    n.watch?.close();
    this.#byHandle.delete(n.handle);
    this.#cyclic.delete(n);
    this.#bySession.get(n.session)?.delete(n);
    if (this.#byHandle.size === 0) this.#stopTimer();
  }

  #current(n: Notification): Buffer {
    switch (n.target.kind) {
      case 'memory':
        return Buffer.from(this.plc.memory.subarray(n.target.offset, n.target.offset + n.target.size));
      case 'symbolVersion':
        return Buffer.from([this.plc.symbolVersion]);
      case 'state':
        return this.options.stateBytes();
    }
  }

  #onLoad(version: number): void {
    for (const n of this.#byHandle.values()) if (n.target.kind === 'memory') n.active = false;
    this.#broadcast('symbolVersion', Buffer.from([version]));
  }

  #broadcast(kind: NotificationTarget['kind'], data: Buffer): void {
    const now = this.plc.now();
    for (const n of this.#byHandle.values()) if (n.target.kind === kind) this.#enqueue(n, data, now, true);
  }

  #enqueue(n: Notification, data: Buffer, time: number, immediate = false): void {
    if (!n.active || n.session.closed) return;
    let list = this.#pending.get(n.session);
    if (!list) {
      list = [];
      this.#pending.set(n.session, list);
    }
    list.push({ n, data, time, deadline: immediate ? time : time + n.maxDelayMs });
    if (list.length > MAX_PENDING_SAMPLES) this.#coalesce(n.session, list);
    if (immediate || n.maxDelayMs === 0) this.#queueFlush();
  }

  #queueFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      this.#flush(this.plc.now());
    });
  }

  #ensureTimer(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#tick(), this.options.tickMs);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    this.plc.sample();
    const now = this.plc.now();
    for (const n of this.#cyclic) {
      if (!n.active || now < n.nextDue) continue;
      this.#enqueue(n, this.#current(n), now);
      n.nextDue = Math.max(n.nextDue + n.cycleMs, now + this.options.tickMs / 2);
    }
    this.#flush(now);
  }

  #flush(now: number): void {
    for (const [session, list] of this.#pending) {
      if (list.length === 0) continue;
      if (session.closed) {
        this.#pending.delete(session);
        continue;
      }
      if (!list.some((p) => p.deadline <= now)) continue;
      const counters = this.counters(session);
      if (session.bufferedBytes > this.options.maxBufferedBytes) {
        this.#coalesce(session, list);
        continue;
      }
      this.#pending.set(session, []);
      this.#send(session, list, counters);
    }
  }

  /** Keeps only the latest sample per handle: a slow client loses intermediate values, never the last. */
  #coalesce(session: ClientSession, list: readonly Pending[]): void {
    const latest = new Map<number, Pending>();
    for (const p of list) latest.set(p.n.handle, p);
    this.counters(session).samplesDropped += list.length - latest.size;
    this.#pending.set(session, [...latest.values()]);
  }

  #send(session: ClientSession, list: readonly Pending[], counters: NotificationCounters): void {
    const routes = new Map<string, Pending[]>();
    for (const p of list) {
      const key = `${formatAmsAddress(p.n.server)}>${formatAmsAddress(p.n.client)}`;
      const group = routes.get(key);
      if (group) group.push(p);
      else routes.set(key, [p]);
    }
    for (const group of routes.values()) {
      const first = group[0];
      if (!first) continue;
      for (let i = 0; i < group.length; i += MAX_SAMPLES_PER_FRAME) {
        const chunk = group.slice(i, i + MAX_SAMPLES_PER_FRAME);
        session.sendNotification(first.n.server, first.n.client, encodeDeviceNotification(stampsOf(chunk)));
        counters.framesSent++;
        counters.samplesSent += chunk.length;
      }
    }
  }
}

/** Consecutive samples taken at the same time share a stamp. */
function stampsOf(list: readonly Pending[]): NotificationStamp[] {
  const stamps: Array<{ time: number; samples: Array<{ handle: number; data: Buffer }> }> = [];
  for (const p of list) {
    const last = stamps[stamps.length - 1];
    if (last && last.time === p.time) last.samples.push({ handle: p.n.handle, data: p.data });
    else stamps.push({ time: p.time, samples: [{ handle: p.n.handle, data: p.data }] });
  }
  return stamps.map((s) => ({ timestamp: toFileTime(s.time), samples: s.samples }));
}
