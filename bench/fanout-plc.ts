// The PLC side of `bench:fanout -- --budget`, in its own process: sim-ads serving N LREAL symbols that all change
// every 100 ms scan (each value the wall-clock time of the write, for latency), counting the ADS requests its
// clients send. IPC: sends { port } when listening; 'stats' -> { requests } (all connections, ever).
import { performance } from 'node:perf_hooks';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';

const symbolCount = Number(process.argv[2] ?? 500);
const scanMs = 100;
const now = (): number => performance.timeOrigin + performance.now();

const b = new ProgramBuilder();
for (let i = 0; i < symbolCount; i++) b.symbol(`MAIN.rValue${i}`, 'LREAL', { value: 0 });
const plc = new SimulatedPlc(b.build());
const offsets = Array.from({ length: symbolCount }, (_, i) => plc.resolve(`MAIN.rValue${i}`).offset);
const server = createAdsServer({ plc, host: '127.0.0.1', port: 0, tickMs: 10 });
const address = await server.listen();
const requests = (): number => server.stats().clients.reduce((sum, c) => sum + c.requests, 0);
setInterval(() => {
  const t = now();
  for (const [i, offset] of offsets.entries()) plc.memory.writeDoubleLE(t + i * 1e-6, offset);
}, scanMs);
process.on('message', (message) => {
  if (message === 'stats') process.send?.({ requests: requests() });
});
process.send?.({ port: address.port });
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
