// Stream clients for the notification tests: a raw SSE reader over node:http (sees every byte, the ids and the
// headers), the app started on a real socket over a PLC on either driver, and waits on events, never sleeps.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { program } from '../../targets/ads/harness.ts';
import { buildTestApp, type TestAppOptions } from '../../helpers/app.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { startTestPlc, type TestDriver, type TestPlc } from '../variables/fixture.ts';
import type { Program } from '../../../src/simulator/engine/index.ts';
import type { PlcTarget, SubscribeOptions, Subscription } from '../../../src/targets/target.ts';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

export const waitLimitMs = 10_000;

/** Counts the subscriptions the gateway opens on the target, to prove they are shared and released. */
export function countingTarget(target: PlcTarget): PlcTarget & { open: number; opened: number } {
  const counter = { open: 0, opened: 0 };
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (prop === 'open') return counter.open;
      if (prop === 'opened') return counter.opened;
      if (prop === 'subscribe') {
        return async (path: string, options: SubscribeOptions): Promise<Subscription> => {
          const sub = await t.subscribe(path, options);
          counter.open += 1;
          counter.opened += 1;
          let closed = false;
          return {
            symbol: sub.symbol,
            close: async () => {
              if (!closed) counter.open -= 1;
              closed = true;
              await sub.close();
            },
          };
        };
      }
      const value: unknown = Reflect.get(t, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  }) as PlcTarget & { open: number; opened: number };
}

export interface StreamApp {
  app: FastifyInstance;
  base: string;
  plc: TestPlc;
  target: PlcTarget & { open: number; opened: number };
  token: string;
  close(): Promise<void>;
}

export async function startStreamApp(
  driver: TestDriver,
  options: Omit<TestAppOptions, 'targets'> & { program?: Program } = {},
): Promise<StreamApp> {
  // A running clock: cyclic ADS notifications sample on PLC time.
  const plc = await startTestPlc('plc1', driver, options.program ?? program(), Date.now);
  const target = countingTarget(plc.target);
  const app = await buildTestApp({ ...options, targets: [target] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    plc,
    target,
    token: await mintToken(),
    close: async () => {
      await app.close();
      await plc.close();
    },
  };
}

export function sseUrl(base: string, symbols: readonly string[], plcId = 'plc1'): string {
  const q = symbols.map((s) => `symbols=${encodeURIComponent(s)}`).join('&');
  return `${base}/api/plcs/${plcId}/notifications/sse?${q}`;
}

/** A raw SSE reader: parses the stream itself, so tests see exactly what was sent. */
export class RawSse {
  readonly events: SseEvent[] = [];
  status = 0;
  headers: IncomingHttpHeaders = {};
  body = '';
  ended = false;
  readonly #signal = new Signal();
  #response: IncomingMessage | undefined;
  #buffer = '';
  readonly #request;

  constructor(url: string, headers: Record<string, string>, options: { paused?: boolean } = {}) {
    this.#request = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      this.#response = res;
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.setEncoding('utf8');
      if (options.paused === true) res.pause();
      res.on('data', (chunk: string) => this.#onData(chunk));
      res.on('end', () => this.#end());
      res.on('close', () => this.#end());
      this.#signal.notify();
    });
    this.#request.on('error', () => this.#end());
    this.#request.end();
  }

  /** Waits for the status line and headers. */
  async opened(): Promise<this> {
    await this.#signal.until(
      () => this.status > 0,
      waitLimitMs,
      () => 'response',
    );
    return this;
  }

  /** Waits for the whole (error) body. */
  async json(): Promise<{ data: unknown; error: { code: string; message: string } | null }> {
    await this.#signal.until(
      () => this.ended,
      waitLimitMs,
      () => 'end of body',
    );
    return JSON.parse(this.body) as { data: unknown; error: { code: string; message: string } | null };
  }

  async next(match: (e: SseEvent) => boolean, from = 0): Promise<SseEvent> {
    return this.#signal.until(
      () => this.events.slice(from).find(match),
      waitLimitMs,
      () => `matching event after ${JSON.stringify(this.events.slice(-5))}`,
    );
  }

  async count(n: number): Promise<SseEvent[]> {
    return this.#signal.until(
      () => (this.events.length >= n ? this.events.slice(0, n) : undefined),
      waitLimitMs,
      () => `${n} events (have ${JSON.stringify(this.events)})`,
    );
  }

  async closedByServer(): Promise<void> {
    await this.#signal.until(
      () => this.ended,
      waitLimitMs,
      () => 'end of stream',
    );
  }

  resume(): void {
    this.#response?.resume();
  }

  close(): void {
    this.#request.destroy();
  }

  #onData(chunk: string): void {
    if (!String(this.headers['content-type']).startsWith('text/event-stream')) {
      this.body += chunk;
      return;
    }
    this.#buffer += chunk;
    for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) this.events.push({ id, event, data: JSON.parse(data.join('\n')) as unknown });
    }
    this.#signal.notify();
  }

  #end(): void {
    this.ended = true;
    this.#signal.notify();
  }
}

export function authHeaders(token: string): Record<string, string> {
  return bearer(token);
}

/** The admin listing of open streams. */
export async function connections(s: StreamApp): Promise<Array<Record<string, unknown>>> {
  const res = await s.app.inject({ method: 'GET', url: '/api/admin/connections', headers: bearer(s.token) });
  return res.json<{ data: Array<Record<string, unknown>> }>().data;
}
