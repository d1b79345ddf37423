// The MCP test rig: a listening gateway (127.0.0.1, port 0) with two simulated PLCs running the alarm scenario,
// `line1` (alarm-monitored) and `line2`, and SDK clients over Streamable HTTP holding the tokens a test asks for.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import type { SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { AppDeps } from '../../../src/app.ts';
import { buildTestApp } from '../../helpers/app.ts';
import type { SettingsOverrides } from '../../helpers/config.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { alarmSettings, createPlant } from '../alarms/fixture.ts';

export const viewer = { sub: 'vera', role: 'viewer', scope: 'ads:read' };
export const operator = { sub: 'otto', role: 'operator', scope: 'ads:read ads:write' };
export const admin = { sub: 'ada', role: 'admin', scope: 'ads:read ads:write ads:lifecycle' };
/** An operator that may reach line1 only. */
export const line1Only = { ...operator, sub: 'lena', plc_access: ['line1'] };

export interface McpRig {
  readonly app: FastifyInstance;
  readonly url: URL;
  readonly line1: SimulatedTarget;
  readonly line2: SimulatedTarget;
  /** An SDK client, initialized, carrying a token with these claims (admin by default). */
  connect(claims?: Record<string, unknown>, headers?: Record<string, string>): Promise<Client>;
  /** A plain HTTP call with a token of these claims (admin by default). */
  http(method: string, path: string, claims?: Record<string, unknown>): Promise<Response>;
  close(): Promise<void>;
}

export interface RigOptions {
  settings?: SettingsOverrides;
  now?: () => number;
  sleep?: AppDeps['sleep'];
}

/**
 * A PLC clock 10 ms ahead per simulated ms (never going back on reset): a scan samples its watches before the
 * simulation counts it, so each scan of a multi-cycle step is a cycle time later for the PLC and the alarm
 * monitor sees every scan's change, however little wall time the step took.
 */
function followingClock(): { now: () => number; follow(target: SimulatedTarget): void } {
  let followed: SimulatedTarget | undefined;
  let carried = 0;
  let last = 0;
  return {
    now: () => {
      const elapsed = followed?.simulation?.state().elapsedMs ?? 0;
      if (elapsed < last) carried += last;
      last = elapsed;
      return Date.now() + 10 * (carried + elapsed);
    },
    follow: (target) => void (followed = target),
  };
}

async function plant(id: string): Promise<SimulatedTarget> {
  const clock = followingClock();
  const target = await createPlant(id, clock.now);
  clock.follow(target);
  return target;
}

export async function startMcpRig(options: RigOptions = {}): Promise<McpRig> {
  const line1 = await plant('line1');
  const line2 = await plant('line2');
  const base = alarmSettings({}, {});
  // Server streams (GET /mcp) seen per session: connect() waits for its own, so that no test's notification
  // can be sent before the client listens.
  const streams = new Map<string, number>();
  const streamSeen = new Signal();
  const app = await buildTestApp({
    extend: (instance) => {
      instance.addHook('onRequest', (request, _reply, done) => {
        const session = request.headers['mcp-session-id'];
        if (request.method === 'GET' && request.url === '/mcp' && typeof session === 'string') {
          streams.set(session, (streams.get(session) ?? 0) + 1);
          streamSeen.notify();
        }
        done();
      });
    },
    targets: [line1, line2],
    settings: {
      ...base,
      Features: { ...(base.Features as object), Mcp: true, TypeMetadata: true },
      PlcTargets: { line1: { Rpc: { Invokable: ['GVL_HMI.fbAlarms.AcknowledgeAlarm'] } } },
      ...options.settings,
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const clients: Client[] = [];
  return {
    app,
    url,
    line1,
    line2,
    async connect(claims = admin, headers = {}) {
      const token = await mintToken(claims);
      const client = new Client({ name: 'plc-gateway-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...bearer(token), ...headers } },
      });
      await client.connect(transport);
      clients.push(client);
      const session = transport.sessionId;
      await streamSeen.until(
        () => session !== undefined && streams.has(session),
        10_000,
        () => 'the server stream',
      );
      // The stream's request is taken in before this round trip's: the server is listening once it returns.
      await client.ping();
      return client;
    },
    async http(method, path, claims = admin) {
      return fetch(new URL(path, url), { method, headers: bearer(await mintToken(claims)) });
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await app.close();
      await line1.close();
      await line2.close();
    },
  };
}

/** The structured result of a successful call. */
export function dataOf<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  assert.notEqual(r.isError, true, `expected success, got ${JSON.stringify(r.content)}`);
  assert.ok(r.structuredContent, 'a successful call carries structuredContent');
  assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), r.structuredContent);
  return r.structuredContent as T;
}

/** The API error of a refused call: isError with `{ error: { code, message } }` as its text. */
export function errorOf(result: unknown): { code: string; message: string } {
  const r = result as CallToolResult;
  assert.equal(r.isError, true, `expected a tool error, got ${JSON.stringify(r.structuredContent)}`);
  const body = JSON.parse((r.content[0] as { text: string }).text) as {
    error: { code: string; message: string };
  };
  return body.error;
}
