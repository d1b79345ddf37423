// The plant of bench:cluster, in its own process so its CPU is not the gateways': 20 simulated PLCs served over ADS
// (each its own port, as real PLCs are separate hosts), 50 LREAL symbols each, all written every 100 ms scan with
// the wall-clock time of the write, so a client measures change-to-frame latency; and a 10-slot alarm array each,
// one slot toggled per scan (raised, then ended ten scans later), the raise's ErrorCode the wall-clock millisecond
// of the change (mod 1e9). Sends { ports } when ready.
import { performance } from 'node:perf_hooks';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { errorEntryMembers, errorTypeMembers, timeStructMembers } from '../src/plc/index.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';

export const plcCount = 20;
export const symbolCount = 50;
export const scanMs = 100;
export const symbolPaths = Array.from({ length: symbolCount }, (_, i) => `MAIN.rValue${i}`);
export const alarmArray = 'GVL.fbAlarms.aAlarms';
export const alarmSlots = 10;
const now = (): number => performance.timeOrigin + performance.now();

function declareAlarms(b: ProgramBuilder): void {
  b.enum('E_ErrorType', [...errorTypeMembers], 'INT');
  b.struct(
    'TIMESTRUCT',
    timeStructMembers.map((name) => ({ name, type: 'WORD' })),
  );
  b.struct('ST_ErrorEntry', errorEntryMembers);
  b.functionBlock('FB_Alarms', [{ name: 'aAlarms', type: `ARRAY [1..${alarmSlots}] OF ST_ErrorEntry` }], []);
  b.symbol('GVL.fbAlarms', 'FB_Alarms');
}

const slotValue = (slot: number, on: boolean, t: number) => ({
  sKey: `ALM_${slot}`,
  Id: `eq${slot}`,
  ErrorCode: Math.floor(t) % 1_000_000_000,
  ErrorType: 2,
  IsActive: on,
  NeedsAck: false,
  IsAcked: false,
});

async function main(): Promise<void> {
  const plcs: SimulatedPlc[] = [];
  const ports: number[] = [];
  for (let p = 0; p < plcCount; p++) {
    const b = new ProgramBuilder();
    for (const path of symbolPaths) b.symbol(path, 'LREAL', { value: 0 });
    declareAlarms(b);
    const plc = new SimulatedPlc(b.build());
    const server = createAdsServer({ plc, port: 0, tickMs: 10 });
    const address = await server.listen();
    plcs.push(plc);
    ports.push(address.port);
  }
  let scan = 0;
  setInterval(() => {
    const t = now();
    const slot = 1 + (scan % alarmSlots);
    const raise = Math.floor(scan / alarmSlots) % 2 === 0;
    scan++;
    for (const plc of plcs) {
      symbolPaths.forEach((path, i) => plc.write(path, t + i * 1e-6));
      plc.write(`${alarmArray}[${slot}]`, slotValue(slot, raise, t));
    }
  }, scanMs);
  process.send?.({ ports });
  process.on('message', (m) => {
    if (m === 'stop') process.exit(0);
  });
}

if (process.send) void main();
