// Benchmark of the simulator's ADS server with the real ads-client over loopback: single reads by
// handle, 1000-value sum reads, and notifications delivered for 500 changing symbols.
// Run: npm run bench:ads-server [-- --seconds 3]
import { ProgramBuilder } from '../src/simulator/engine/program.ts';
import { SimulatedPlc } from '../src/simulator/engine/plc.ts';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { connectClient, fmt, rate as rateFor } from './ads-rate.ts';

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 3;
const SYMBOLS = 500;
const rate = (op: () => Promise<unknown>, parallel: number): Promise<number> =>
  rateFor(op, parallel, seconds);

function program() {
  const b = new ProgramBuilder();
  b.symbol('MAIN.nValue', 'DINT', { value: 42 });
  for (let i = 0; i < SYMBOLS; i++) b.symbol(`GVL.n${i}`, 'DINT');
  b.symbol('GVL.aWords', 'ARRAY [0..999] OF DINT');
  return b.build();
}

async function main(): Promise<void> {
  const plc = new SimulatedPlc(program());
  const server = createAdsServer({ plc, port: 0, tickMs: 10 });
  const address = await server.listen();
  const client = await connectClient(address.port);
  console.log(
    `ADS server benchmark, ads-client over loopback, ${seconds} s per figure (Node ${process.version})`,
  );

  const handle = await client.createVariableHandle('MAIN.nValue');
  const single = await rate(() => client.readRawByHandle(handle), 1);
  const pipelined = await rate(() => client.readRawByHandle(handle), 16);
  console.log(
    `read 4 bytes by handle:        ${fmt(single)} reads/s (one at a time), ${fmt(pipelined)} reads/s (16 in flight)`,
  );

  const base = plc.resolve('GVL.aWords').offset;
  const commands = Array.from({ length: 1000 }, (_, i) => ({
    indexGroup: 0x4040,
    indexOffset: base + i * 4,
    size: 4,
  }));
  const sums = await rate(() => client.readRawMulti(commands), 1);
  console.log(`sum read of 1000 values:       ${fmt(sums)} requests/s = ${fmt(sums * 1000)} values/s`);

  let received = 0;
  for (let i = 0; i < SYMBOLS; i++) {
    await client.subscribeValue(`GVL.n${i}`, () => received++, 0);
  }
  const offsets = Array.from({ length: SYMBOLS }, (_, i) => plc.resolve(`GVL.n${i}`).offset);
  let tick = 0;
  // Every symbol changes every 10 ms, as fast as the server's sampling timer looks.
  const driver = setInterval(() => {
    tick++;
    for (const offset of offsets) plc.memory.writeInt32LE(tick, offset);
  }, 10);
  const before = received;
  const start = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const perSecond = ((received - before) * 1000) / (Date.now() - start);
  clearInterval(driver);
  const stats = server.stats().clients[0]?.notifications;
  console.log(
    `notifications, ${SYMBOLS} symbols:     ${fmt(perSecond)} samples/s delivered to one client` +
      (stats
        ? ` (${fmt(stats.samplesSent / Math.max(1, stats.framesSent))} samples per frame, ${stats.samplesDropped} dropped)`
        : ''),
  );

  await client.disconnect();
  await server.close();
}

await main();
