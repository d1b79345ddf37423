// Benchmark of the ADS target (Mode: Real) against the simulator's ADS server over loopback: 100 variables
// through one readMany (sum commands) versus one read per variable, and 1000 variables through readMany.
// Run: npm run bench:ads-read [-- --rounds 50]   (target: readMany / per-variable reads >= 10x)
import type { PlcTargetConfig } from '../src/config/schema.ts';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createAdsTarget } from '../src/targets/ads/index.ts';
import { testConfig } from '../test/helpers/config.ts';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 50;
const VARIABLES = 1000;

function program() {
  const b = new ProgramBuilder();
  for (let i = 0; i < VARIABLES; i++) b.symbol(`GVL.n${i}`, i % 2 ? 'DINT' : 'LREAL', { value: i });
  return b.build();
}

/** Average milliseconds of `op` over the rounds, after one warm-up run. */
async function timeIt(op: () => Promise<unknown>): Promise<number> {
  await op();
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await op();
  return Number(process.hrtime.bigint() - start) / 1e6 / rounds;
}

async function main(): Promise<void> {
  const server = createAdsServer({ plc: new SimulatedPlc(program()), host: '127.0.0.1', port: 0 });
  const address = await server.listen();
  const settings: PlcTargetConfig = {
    DisplayName: 'Bench',
    Mode: 'Real',
    AmsNetId: address.netId,
    Address: '127.0.0.1',
    Port: address.adsPort,
    TcpPort: address.port,
    TimeoutMs: 5000,
    SymbolBrowseTimeoutMs: 30000,
    NotificationBudget: 500,
    Rpc: { Invokable: [] },
    InitialValues: {},
    ScenarioAutoStart: false,
  };
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  const target = createAdsTarget('bench', settings, { config });
  await target.start();
  if (target.connectionState() !== 'Connected') throw new Error('the ADS target did not connect');
  await target.symbols();

  const hundred = Array.from({ length: 100 }, (_, i) => `GVL.n${i}`);
  const thousand = Array.from({ length: VARIABLES }, (_, i) => `GVL.n${i}`);
  const summed = await timeIt(() => target.readMany(hundred));
  const single = await timeIt(async () => {
    for (const p of hundred) await target.read(p);
  });
  const big = await timeIt(() => target.readMany(thousand));
  const check = await target.readMany(thousand);
  const failures = check.filter((i) => 'error' in i).length;

  console.log(`ADS target over loopback, ${rounds} rounds each`);
  console.log(`  100 variables, readMany (sum read):   ${summed.toFixed(2)} ms`);
  console.log(`  100 variables, one read each:         ${single.toFixed(2)} ms`);
  console.log(`  ratio (one read each / readMany):     ${(single / summed).toFixed(1)}x (target >= 10x)`);
  console.log(`  1000 variables, readMany:             ${big.toFixed(2)} ms (${failures} failed items)`);
  console.log(`  1000 variables per second (readMany): ${Math.round((VARIABLES * 1000) / big)}`);

  await target.close();
  await server.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
