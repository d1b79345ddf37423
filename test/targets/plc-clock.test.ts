// DATE/DT honour PlcTargets.<id>.PlcClock the same way on both drivers: Utc (default) answers UTC with Z,
// Local the gateway's local time with its offset (writes with a zone become local fields), Unspecified no zone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramBuilder, SimulatedPlc } from '../../src/simulator/engine/index.ts';
import { SimulatedTarget } from '../../src/targets/simulated/index.ts';
import type { PlcClock } from '../../src/targets/plc-clock.ts';
import type { PlcTarget } from '../../src/targets/target.ts';
import { EventLog } from '../contract/events.ts';
import { makeTarget, reach, startPlant } from './ads/harness.ts';

// A zone without daylight saving and with a half-hour offset: +05:30 all year.
process.env.TZ = 'Asia/Kolkata';

function plc(): SimulatedPlc {
  const b = new ProgramBuilder();
  b.struct('ST_Stamped', [
    { name: 'nId', type: 'DINT' },
    { name: 'dtAt', type: 'DT' },
  ]);
  b.symbol('GVL.dtStamp', 'DT', { value: '2024-05-01T12:34:56Z' });
  b.symbol('GVL.dDate', 'DATE', { value: '2024-05-01' });
  b.symbol('GVL.stEvent', 'ST_Stamped', { value: { nId: 1, dtAt: '2024-01-02T03:04:05Z' } });
  return new SimulatedPlc(b.build());
}

async function subject(
  driver: string,
  clock: PlcClock,
): Promise<{ t: PlcTarget; p: SimulatedPlc; close: () => Promise<void> }> {
  const p = plc();
  if (driver === 'simulated') {
    const t = new SimulatedTarget('sim', 'sim', p, { plcClock: clock });
    await t.start();
    return { t, p, close: () => t.close() };
  }
  const plant = await startPlant(p);
  const t = makeTarget(plant.port, { PlcClock: clock, TimeoutMs: 3000 });
  await t.start();
  await reach(t, 'Connected');
  return {
    t,
    p,
    close: async () => {
      await t.close();
      await plant.stop();
    },
  };
}

for (const driver of ['simulated', 'real']) {
  describe(`PlcClock (${driver})`, () => {
    it('Utc: UTC with Z', async () => {
      const { t, close } = await subject(driver, 'Utc');
      try {
        assert.equal((await t.read('GVL.dtStamp')).value, '2024-05-01T12:34:56.000Z');
        assert.equal((await t.read('GVL.dDate')).value, '2024-05-01T00:00:00.000Z');
      } finally {
        await close();
      }
    });

    it('Local: the fields are local time, shown with the offset; zoned writes become local fields', async () => {
      const { t, p, close } = await subject(driver, 'Local');
      try {
        assert.equal((await t.read('GVL.dtStamp')).value, '2024-05-01T12:34:56.000+05:30');
        assert.equal((await t.read('GVL.dDate')).value, '2024-05-01T00:00:00.000+05:30');
        assert.deepEqual((await t.read('GVL.stEvent')).value, {
          nId: 1,
          dtAt: '2024-01-02T03:04:05.000+05:30',
        });
        await t.write('GVL.dtStamp', '2024-05-01T10:00:00Z');
        assert.equal(p.read('GVL.dtStamp'), '2024-05-01T15:30:00.000Z', 'stored as local fields');
        assert.equal((await t.read('GVL.dtStamp')).value, '2024-05-01T15:30:00.000+05:30');
        await t.write('GVL.dtStamp', '2024-05-01T08:00:00');
        assert.equal(p.read('GVL.dtStamp'), '2024-05-01T08:00:00.000Z', 'zone-less text is the fields');
        const results = await t.writeMany([
          { symbol: 'GVL.stEvent', value: { dtAt: '2024-01-01T00:00:00+00:00' } },
        ]);
        assert.deepEqual(results, [{ symbol: 'GVL.stEvent' }]);
        assert.equal(p.read('GVL.stEvent.dtAt'), '2024-01-01T05:30:00.000Z');
        const log = new EventLog();
        const sub = await t.subscribe('GVL.dtStamp', { cycleTimeMs: 10, onChange: log.onChange });
        assert.equal((await log.next(() => true)).value, '2024-05-01T08:00:00.000+05:30');
        await sub.close();
      } finally {
        await close();
      }
    });

    it('Unspecified: no zone designator; zone-less writes taken as given', async () => {
      const { t, p, close } = await subject(driver, 'Unspecified');
      try {
        assert.equal((await t.read('GVL.dtStamp')).value, '2024-05-01T12:34:56.000');
        assert.equal((await t.read('GVL.dDate')).value, '2024-05-01T00:00:00.000');
        await t.write('GVL.dtStamp', '2024-05-01T09:00:00');
        assert.equal(p.read('GVL.dtStamp'), '2024-05-01T09:00:00.000Z');
        assert.equal((await t.read('GVL.dtStamp')).value, '2024-05-01T09:00:00.000');
      } finally {
        await close();
      }
    });
  });
}
