// The send timeout (Http.SendTimeoutSeconds): a connection whose send buffer stays above its high-water mark for
// longer than the timeout (the client stopped reading) is destroyed, so no answer, download or event stream can
// pin the gateway's memory by not being read. One rule for every HTTP response; WebSocket connections are left
// to their own protocol's flow control.
import { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface SendWatchTimer {
  /** Milliseconds clock the timeout is measured on; default Date.now. */
  readonly now?: () => number;
  /** Runs `sweep` every `ms` and answers how to stop it; default setInterval. Tests drive sweeps by hand. */
  readonly every?: (sweep: () => SweepResult, ms: number) => () => void;
}

interface Watched {
  /** When the buffer was first seen full since it last drained; undefined while it is not. */
  since: number | undefined;
}

export interface SweepResult {
  /** Connections whose send buffer is full now. */
  readonly blocked: number;
  /** Connections destroyed by this sweep. */
  readonly ended: number;
}

/** Watches the sockets of HTTP requests and ends those whose send buffer stays full past the timeout. */
export class SendWatch {
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  readonly #sockets = new Map<Socket, Watched>();
  readonly #timeouts: Counter;
  readonly #blocked: Gauge;

  constructor(timeoutMs: number, log: FastifyBaseLogger, metrics: Registry, now: () => number = Date.now) {
    this.#timeoutMs = timeoutMs;
    this.#now = now;
    this.#log = log;
    this.#timeouts = new Counter({
      name: 'http_send_timeouts_total',
      help: 'Connections destroyed because their send buffer stayed full past Http.SendTimeoutSeconds.',
      registers: [metrics],
    });
    this.#blocked = new Gauge({
      name: 'http_send_blocked_connections',
      help: 'Connections whose send buffer was full at the last check (the client is not reading).',
      registers: [metrics],
    });
  }

  /** Starts watching a connection (once per socket; it is forgotten when it closes). */
  watch(socket: Socket): void {
    // Injected requests (tests, internal calls) have no real connection to watch.
    if (!(socket instanceof Socket) || this.#sockets.has(socket) || socket.destroyed) return;
    const watched: Watched = { since: undefined };
    this.#sockets.set(socket, watched);
    // An emptied buffer is progress: the client took everything that was queued.
    const drained = (): void => {
      watched.since = undefined;
    };
    socket.on('drain', drained);
    socket.once('close', () => {
      socket.removeListener('drain', drained);
      this.#sockets.delete(socket);
    });
  }

  /** Checks every watched connection once. */
  sweep(): SweepResult {
    const now = this.#now();
    let blocked = 0;
    let ended = 0;
    for (const [socket, watched] of this.#sockets) {
      if (!socket.writableNeedDrain) {
        watched.since = undefined;
        continue;
      }
      blocked += 1;
      watched.since ??= now;
      if (now - watched.since < this.#timeoutMs) continue;
      this.#log.warn(
        { remoteAddress: socket.remoteAddress, bufferedBytes: socket.writableLength },
        `Connection ended: the client took nothing of its answer for ${this.#timeoutMs / 1000} s (Http.SendTimeoutSeconds)`,
      );
      this.#sockets.delete(socket);
      socket.destroy();
      this.#timeouts.inc();
      ended += 1;
    }
    this.#blocked.set(blocked - ended);
    return { blocked, ended };
  }
}

/** Watches every HTTP request's connection; sweeps once a second (or a quarter of a short timeout). */
export function installSendTimeout(
  app: FastifyInstance,
  timeoutSeconds: number,
  metrics: Registry,
  timer: SendWatchTimer = {},
): SendWatch {
  const timeoutMs = timeoutSeconds * 1000;
  const watch = new SendWatch(timeoutMs, app.log, metrics, timer.now);
  app.addHook('onRequest', (request, _reply, done) => {
    // An upgraded connection speaks WebSocket from here on, with its own flow control.
    if (request.raw.headers.upgrade === undefined) watch.watch(request.raw.socket);
    done();
  });
  const every =
    timer.every ??
    ((sweep: () => SweepResult, ms: number) => {
      const interval = setInterval(sweep, ms);
      interval.unref();
      return () => clearInterval(interval);
    });
  const stop = every(() => watch.sweep(), Math.max(10, Math.min(1000, Math.floor(timeoutMs / 4))));
  app.addHook('onClose', (_instance, done) => {
    stop();
    done();
  });
  return watch;
}
