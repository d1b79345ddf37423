// Shared by the file tests: an app with Files on over a test PLC of either driver, and raw-body requests.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FileStore } from '../../../src/simulator/engine/index.ts';
import type { SettingsOverrides } from '../../helpers/config.ts';
import { buildTestApp, type TestAppOptions } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import {
  failingTargets,
  richProgram,
  startTestPlc,
  testNow,
  type TestDriver,
  type TestPlc,
} from '../variables/fixture.ts';

export const mib16 = 16 * 1024 * 1024;

export interface FilesApp {
  sim: TestPlc;
  app: FastifyInstance;
  /** A request with a token of `claims` (default: admin with every scope); `body` as given. */
  send(
    method: 'GET' | 'PUT',
    url: string,
    body?: { raw: Buffer } | { json: unknown } | { text: string; type: string },
    claims?: Record<string, unknown>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startFilesApp(
  driver: TestDriver,
  options: {
    files?: FileStore;
    settings?: SettingsOverrides;
    now?: () => number;
    sendWatch?: TestAppOptions['sendWatch'];
  } = {},
): Promise<FilesApp> {
  const sim = await startTestPlc('sim1', driver, richProgram(), testNow, options.files);
  const app = await buildTestApp({
    targets: [sim.target, ...failingTargets()],
    settings: { Features: { Files: true }, ...options.settings },
    ...(options.now ? { now: options.now } : {}),
    ...(options.sendWatch ? { sendWatch: options.sendWatch } : {}),
  });
  const tokens = new Map<string, string>();
  const tokenFor = async (claims: Record<string, unknown>): Promise<string> => {
    const key = JSON.stringify(claims);
    const hit = tokens.get(key) ?? (await mintToken(claims));
    tokens.set(key, hit);
    return hit;
  };
  return {
    sim,
    app,
    async send(method, url, body, claims = {}) {
      const headers: Record<string, string> = bearer(await tokenFor(claims));
      let payload: string | Buffer | undefined;
      if (body && 'raw' in body) {
        headers['content-type'] = 'application/octet-stream';
        payload = body.raw;
      } else if (body && 'json' in body) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body.json);
      } else if (body) {
        headers['content-type'] = body.type;
        payload = body.text;
      }
      return app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
    },
    close: async () => {
      await app.close();
      await sim.close();
    },
  };
}

/** Every byte value once, in order. */
export function allBytes(): Buffer {
  return Buffer.from(Array.from({ length: 256 }, (_, i) => i));
}
