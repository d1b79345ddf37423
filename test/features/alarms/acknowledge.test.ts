// The acknowledge method's answer, read by name: BOOL TRUE/FALSE or an enum SUCCESS/NOT_FOUND; any other
// member is a refusal (502). A PLC program of the test's own, on both drivers; the array is never written.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { declareErrorEntry, entry, startAlarmRig, testDrivers, type AlarmRig } from './fixture.ts';

const answerPath = 'MAIN.sAnswer';

/** ST_ErrorEntry as PLC programs declare it, and an acknowledge method answering whatever MAIN.sAnswer says. */
function program(): SimulatedPlc {
  const b = new ProgramBuilder();
  declareErrorEntry(b);
  b.enum(
    'E_AckResult',
    ['SUCCESS', 'NOT_FOUND', 'BUSY'].map((name, value) => ({ name, value })),
    'INT',
  );
  const answer = (returnType: string) => ({
    name: returnType === 'BOOL' ? 'AckBool' : 'AckEnum',
    returnType,
    parameters: [{ name: 'sKey', type: 'STRING' }],
    implementation: ({ plc }: { plc: { read(p: string): unknown } }) => {
      const said = plc.read(answerPath) as string;
      return { returnValue: returnType === 'BOOL' ? said === 'SUCCESS' : said };
    },
  });
  b.functionBlock(
    'FB_Alarms',
    [{ name: 'aAlarms', type: 'ARRAY [0..3] OF ST_ErrorEntry' }],
    [answer('BOOL'), answer('E_AckResult')],
  );
  b.symbol('MAIN.fbAlarms', 'FB_Alarms');
  b.symbol(answerPath, 'STRING(20)', { value: 'SUCCESS' });
  return new SimulatedPlc(b.build());
}

for (const driver of testDrivers) {
  for (const method of ['AckBool', 'AckEnum']) {
    describe(`acknowledge answers of ${method} (${driver})`, () => {
      let rig: AlarmRig;
      before(async () => {
        rig = await startAlarmRig(driver, {
          plc: program(),
          alarm: { SymbolPath: 'MAIN.fbAlarms.aAlarms', AcknowledgeMethod: method },
        });
        await rig.writeSlot(0, entry({ sKey: 'A' }));
      });
      after(() => rig.close());

      const ack = (key = 'A') => rig.call('POST', `/api/plcs/line1/alarms/${key}/acknowledge`);
      const say = (answer: string) => rig.plc.write(answerPath, answer);

      test('slot indexes follow the array bounds', async () => {
        const res = await rig.call('GET', '/api/plcs/line1/alarms');
        const items = res.json<{ data: { items: Array<{ 'x-ads': { slotIndex: number } }> } }>().data.items;
        assert.deepEqual(
          items.map((a) => a['x-ads'].slotIndex),
          [0],
        );
      });

      test('TRUE or SUCCESS answers { acknowledged: true }; the array is not written by the gateway', async () => {
        say('SUCCESS');
        const before = rig.plc.read('MAIN.fbAlarms.aAlarms');
        const res = await ack();
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { data: { acknowledged: true }, error: null });
        assert.deepEqual(rig.plc.read('MAIN.fbAlarms.aAlarms'), before);
      });

      test('FALSE or NOT_FOUND answers { acknowledged: false }', async () => {
        say('NOT_FOUND');
        const res = await ack();
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { data: { acknowledged: false }, error: null });
      });

      if (method === 'AckEnum') {
        test('any other member is a refusal: 502 ALARM_ACK_FAILED', async () => {
          say('BUSY');
          const res = await ack();
          assert.equal(res.statusCode, 502, res.body);
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'ALARM_ACK_FAILED');
        });
      }

      test('each acknowledge is one audit record with its outcome', async () => {
        const res = await rig.call('GET', '/api/admin/audit?plcId=line1');
        type Item = {
          action: string;
          target: string;
          result: string;
          error?: { code: string };
          newValue?: unknown;
        };
        const items = res
          .json<{ data: { items: Item[] } }>()
          .data.items.filter((r) => r.action === 'alarm.acknowledge');
        assert.deepEqual(
          items.map((r) => [r.action, r.target, r.result, r.error?.code, r.newValue]),
          [
            ['alarm.acknowledge', 'A', 'ok', undefined, { acknowledged: true }],
            ['alarm.acknowledge', 'A', 'ok', undefined, { acknowledged: false }],
            ...(method === 'AckEnum'
              ? [['alarm.acknowledge', 'A', 'error', 'ALARM_ACK_FAILED', undefined]]
              : []),
          ],
        );
      });
    });
  }
}
