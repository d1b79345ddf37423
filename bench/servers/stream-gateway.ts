// A gateway for the stream benches (bench:fanout, bench:history): one simulated PLC whose LREAL symbols all change
// every scan (each value the wall-clock time of the write, for latency), with limits raised so that only streaming
// is measured, and a viewer token for its clients.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../../src/app.ts';
import { mintToken } from '../../src/cli/mint-token.ts';
import { configFromDocument } from '../../src/config/load.ts';
import { ProgramBuilder, SimulatedPlc } from '../../src/simulator/engine/index.ts';
import { SimulatedTarget } from '../../src/targets/simulated/index.ts';
import { createRegistry } from '../../src/targets/registry.ts';

const signingKey = 'bench-signing-key-0123456789-0123456789';

export interface StreamGateway {
  /** http://127.0.0.1:<port>; the PLC is `plc1`. */
  readonly url: string;
  /** A viewer's token for every PLC. */
  readonly token: string;
  close(): Promise<void>;
}

/** `settings` are merged over the bench's (e.g. a quieter log level when the gateway shares the bench's stdout). */
export async function startStreamGateway(
  paths: readonly string[],
  scanMs: number,
  settings: Record<string, unknown> = {},
): Promise<StreamGateway> {
  const b = new ProgramBuilder();
  for (const p of paths) b.symbol(p, 'LREAL', { value: 0 });
  const target = new SimulatedTarget('plc1', 'Bench PLC', new SimulatedPlc(b.build()));
  await target.start();
  // Defaults, except the limits raised so that only streaming is measured.
  const config = configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      RateLimiting: { Enabled: false },
      ConnectionLimits: { MaxPerUser: 10_000, MaxTotal: 10_000 },
      ...settings,
    },
    process.cwd(),
    {},
  );
  const app = await buildApp(config, { registry: createRegistry([target]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const scan = setInterval(() => {
    const t = performance.timeOrigin + performance.now();
    void target.writeMany(paths.map((symbol, i) => ({ symbol, value: t + i * 1e-6 })));
  }, scanMs);
  const address = app.server.address();
  const token = await mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 3600 },
    { key: signingKey, roleClaim: 'role' },
  );
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    token,
    close: async () => {
      clearInterval(scan);
      await app.close();
      await target.close();
    },
  };
}
