// bench:mqtt: 20 simulated PLCs x 100 LREAL symbols, every symbol changing every 100 ms, published as Sparkplug B
// to a mosquitto started on a free port; a subscriber in a child process decodes every DDATA. Prints metrics
// published per second, the gateway's CPU per 1,000 MQTT messages (this process: gateway and the simulated PLCs
// writing their changes), and end-to-end latency p50/p99 from the PLC change (the value is its wall time) to
// the subscriber.
// Run: npm run bench:mqtt [-- --seconds 10 --plcs 20 --symbols 100 --period-ms 100]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'mqtt';
import { buildApp } from '../src/app.ts';
import { decode } from '../src/features/mqtt/sparkplug-codec.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { SimulatedTarget } from '../src/targets/simulated/index.ts';
import { configFromDocument } from '../src/config/load.ts';
import { Mosquitto } from './servers/mosquitto.ts';

const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

interface Report {
  metrics: number;
  latencies: number[];
}

async function subscriber(url: string): Promise<void> {
  const client = connect(url, { reconnectPeriod: 0 });
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  let counting = false;
  let metrics = 0;
  const latencies: number[] = [];
  client.on('message', (topic, payload) => {
    if (!counting || !topic.includes('/DDATA/')) return;
    const at = Date.now();
    for (const m of decode(payload).metrics ?? []) {
      metrics += 1;
      // Every 20th metric is timed: the value is the wall time of its change.
      if (metrics % 20 === 0) latencies.push(at - Number(m.value));
    }
  });
  await client.subscribeAsync('spBv1.0/#', { qos: 0 });
  process.on('message', (command: string) => {
    if (command === 'start') counting = true;
    else {
      counting = false;
      process.send?.({ metrics, latencies } satisfies Report);
      void client.endAsync().then(() => process.exit(0));
    }
  });
  process.send?.('ready');
}

async function main(): Promise<void> {
  const seconds = arg('seconds', 10);
  const plcs = arg('plcs', 20);
  const symbols = arg('symbols', 100);
  const periodMs = arg('period-ms', 100);
  const broker = await Mosquitto.start();
  const dir = mkdtempSync(join(tmpdir(), 'bench-mqtt-'));
  const targets: SimulatedTarget[] = [];
  const plcList: SimulatedPlc[] = [];
  for (let p = 0; p < plcs; p++) {
    const b = new ProgramBuilder();
    for (let s = 0; s < symbols; s++) b.symbol(`MAIN.f${s}`, 'LREAL', { value: 0 });
    const plc = new SimulatedPlc(b.build());
    const target = new SimulatedTarget(`plc${p}`, `plc${p}`, plc);
    await target.start();
    targets.push(target);
    plcList.push(plc);
  }
  // Every symbol of each PLC, named one by one.
  const Targets = Object.fromEntries(
    targets.map((t) => [
      t.id,
      { Symbols: Array.from({ length: symbols }, (_, s) => ({ Path: `MAIN.f${s}` })) },
    ]),
  );
  const config = configFromDocument(
    {
      Auth: { SigningKey: 'bench-signing-key-0123456789-0123456789' },
      Notifications: { DefaultCycleTimeMs: periodMs },
      PlcTargets: Object.fromEntries(targets.map((t) => [t.id, { Mode: 'Simulated' }])),
      Mqtt: {
        Enabled: true,
        Url: broker.url,
        GroupId: 'bench',
        EdgeNodeId: 'gw',
        BufferSize: 1_000_000,
        Targets,
      },
    },
    dir,
    {},
  );
  const app = await buildApp(config, { registry: createRegistry(targets) });
  await app.ready();

  const child = fork(new URL(import.meta.url).pathname, ['subscriber', broker.url], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await once(child, 'message');
  // Births first: the rig starts once every device is online.
  const metricsText = async (): Promise<string> =>
    (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const figure = (text: string, name: string): number =>
    Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  for (;;) {
    if (figure(await metricsText(), 'mqtt_messages_published_total') >= plcs + 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  let tick = 0;
  const timer = setInterval(() => {
    tick += 1;
    const now = Date.now();
    for (const plc of plcList) {
      // Unique per tick, so every symbol changes; the value is the change's wall time in ms.
      for (let s = 0; s < symbols; s++) plc.write(`MAIN.f${s}`, now + s * 1e-6 + (tick % 2) * 1e-7);
      plc.sample({ immediate: true });
    }
  }, periodMs);

  const before = figure(await metricsText(), 'mqtt_messages_published_total');
  child.send('start');
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (Date.now() - t0) / 1000;
  const after = figure(await metricsText(), 'mqtt_messages_published_total');
  child.send('stop');
  const [report] = (await once(child, 'message')) as [Report];
  clearInterval(timer);

  const messages = after - before;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const sorted = report.latencies.sort((a, b) => a - b);
  const pct = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
  const offered = (plcs * symbols * 1000) / periodMs;
  console.log(
    `bench:mqtt  ${plcs} PLCs x ${symbols} symbols every ${periodMs} ms (${offered} changes/s offered), ${seconds} s`,
  );
  console.log(`  metrics received by the subscriber: ${(report.metrics / elapsed).toFixed(0)}/s`);
  console.log(`  MQTT messages published:            ${(messages / elapsed).toFixed(0)}/s`);
  console.log(
    `  gateway CPU (with the PLC simulation): ${((cpuMs / (elapsed * 1000)) * 100).toFixed(1)} % of a core, ${(cpuMs / (messages / 1000)).toFixed(1)} ms per 1,000 messages, ${(cpuMs / (report.metrics / 1000)).toFixed(2)} ms per 1,000 metrics`,
  );
  console.log(
    `  PLC change -> subscriber: p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms (${sorted.length} samples)`,
  );
  console.log(`  dropped: ${figure(await metricsText(), 'mqtt_dropped_changes_total')}`);

  await app.close();
  for (const t of targets) await t.close();
  await broker.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] === 'subscriber') await subscriber(process.argv[3] as string);
else await main();
