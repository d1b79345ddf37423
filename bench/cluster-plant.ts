// The plant of bench:cluster, in its own process so its CPU is not the gateways': 20 simulated PLCs served over ADS
// (each its own port, as real PLCs are separate hosts), 50 LREAL symbols each, all written every 100 ms scan with
// the wall-clock time of the write, so a client measures change-to-frame latency. Sends { ports } when ready.
import { performance } from 'node:perf_hooks';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';

export const plcCount = 20;
export const symbolCount = 50;
export const scanMs = 100;
export const symbolPaths = Array.from({ length: symbolCount }, (_, i) => `MAIN.rValue${i}`);
const now = (): number => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const plcs: SimulatedPlc[] = [];
  const ports: number[] = [];
  for (let p = 0; p < plcCount; p++) {
    const b = new ProgramBuilder();
    for (const path of symbolPaths) b.symbol(path, 'LREAL', { value: 0 });
    const plc = new SimulatedPlc(b.build());
    const server = createAdsServer({ plc, port: 0, tickMs: 10 });
    const address = await server.listen();
    plcs.push(plc);
    ports.push(address.port);
  }
  setInterval(() => {
    const t = now();
    for (const plc of plcs) symbolPaths.forEach((path, i) => plc.write(path, t + i * 1e-6));
  }, scanMs);
  process.send?.({ ports });
  process.on('message', (m) => {
    if (m === 'stop') process.exit(0);
  });
}

if (process.send) void main();
