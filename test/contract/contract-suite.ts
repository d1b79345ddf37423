// The PlcTarget contract: one suite, run on the in-process simulated target and on the ADS target
// talking to the simulator's ADS server over loopback TCP. Both runs make the same assertions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import type { SimulatedPlc } from '../../src/simulator/engine/index.ts';
import type { BatchReadItem, PlcTarget } from '../../src/targets/target.ts';
import { EventLog } from './events.ts';
import { elementary, type ContractFactory, type ContractSubject } from './fixture.ts';

const code = (c: string) => (e: unknown) => {
  assert.ok(e instanceof AppError, `expected AppError ${c}, got ${String(e)}`);
  assert.equal(e.code, c, e.message);
  return true;
};

const axis = 'GVL_HMI.aAxes[2]';
const alarms = 'GVL_HMI.fbAlarms';

function valueOf(item: BatchReadItem | undefined): unknown {
  assert.ok(item && 'value' in item, JSON.stringify(item));
  return item.value;
}

export function plcTargetContract(name: string, factory: ContractFactory): void {
  describe(`PlcTarget contract: ${name}`, () => {
    let subject: ContractSubject;
    let t: PlcTarget;
    let plc: SimulatedPlc;

    before(async () => {
      subject = await factory();
      t = subject.target;
      plc = subject.plc;
    });
    after(async () => {
      await subject.cleanup();
    });

    it('is connected after start and describes the device', async () => {
      assert.equal(t.connectionState(), 'Connected');
      assert.equal(t.mode === 'Real' || t.mode === 'Simulated', true);
      assert.deepEqual(await t.deviceInfo(), {
        deviceName: 'Plc30 App',
        version: '3.1.4024',
        adsState: 'Run',
      });
      const state = await t.deviceState();
      assert.equal(state.state, 'Run');
      assert.ok(state.timestamp instanceof Date);
    });

    it('publishes the program symbol tree exactly', async () => {
      const tree = await t.symbols();
      assert.deepEqual(tree, plc.program.symbolTree());
      const machine = tree.find((n) => n.instancePath === 'GVL_HMI.stMachine');
      assert.equal(machine?.typeName, 'ST_HmiMachine');
      assert.ok(machine.children?.some((c) => c.instancePath === 'GVL_HMI.stMachine.rSpeed'));
      const axes = tree.find((n) => n.instancePath === 'GVL_HMI.aAxes');
      assert.equal(axes?.children?.[0]?.instancePath, 'GVL_HMI.aAxes[1]');
    });

    it('answers enum members in declaration order, cached, with the catalog errors', async () => {
      const expected = {
        typeName: 'E_MachineMode',
        members: [
          { name: 'eManual', value: -1 },
          { name: 'eAuto', value: 10 },
          { name: 'eService', value: 20 },
          { name: 'eSetup', value: 35 },
        ],
      };
      assert.deepEqual(await t.enumMembers('E_MachineMode'), expected);
      assert.deepEqual(await t.enumMembers('e_machinemode'), expected);
      assert.equal((await t.enumMembers('E_ErrorType')).members.length, 4);
      await assert.rejects(t.enumMembers('E_Nope'), code('TYPE_NOT_FOUND'));
      await assert.rejects(t.enumMembers('INT'), code('VALIDATION_ERROR'));
      await assert.rejects(t.enumMembers('ST_HmiAxis'), code('VALIDATION_ERROR'));
    });

    it('reads every elementary type in its JSON form', async () => {
      for (const [path, [type, value]] of Object.entries(elementary)) {
        const r = await t.read(path);
        assert.deepEqual([r.symbol, r.value, r.typeName], [path, value, type], path);
        assert.ok(r.timestamp instanceof Date);
      }
    });

    it('reads whole symbols, members and elements exactly as the PLC holds them', async () => {
      for (const s of plc.program.symbols) {
        const r = await t.read(s.name);
        assert.deepEqual(r.value, plc.read(s.name), s.name);
        assert.equal(r.typeName, s.type.name);
      }
      assert.equal((await t.read('GVL_Sim.eMachineMode')).value, -1);
      assert.equal((await t.read(`${axis}.sId`)).value, 'cell.z');
      assert.equal((await t.read('gvl_hmi.aaxes[2].SID')).value, 'cell.z');
      assert.equal((await t.read('GVL_HMI.stMachine.nActiveRecipeId')).typeName, 'UDINT');
      await assert.rejects(t.read('MAIN.nope'), code('SYMBOL_NOT_FOUND'));
      await assert.rejects(t.read('GVL_HMI.aAxes[17].sId'), code('SYMBOL_NOT_FOUND'));
      await assert.rejects(t.read('GVL_HMI.aAxes[1]..x'), code('SYMBOL_NOT_FOUND'));
    });

    it('writes values and reads them back in canonical form', async () => {
      const cases: Array<[string, unknown, unknown]> = [
        ['MAIN.bFlag', false, false],
        ['MAIN.nInt', 32767, 32767],
        ['MAIN.nLint', '-9223372036854775808', '-9223372036854775808'],
        ['MAIN.nUlint', 42, '42'],
        ['MAIN.fLreal', 0.1, 0.1],
        ['MAIN.tTime', 0, 0],
        ['MAIN.dDate', '2030-12-31', '2030-12-31T00:00:00.000Z'],
        ['MAIN.dtStamp', '2024-05-01T14:34:56+02:00', '2024-05-01T12:34:56.000Z'],
        ['MAIN.sText', 'Ölstand ≤ ok'.replace('≤', '<'), 'Ölstand < ok'],
        ['GVL_Sim.eMachineMode', 'eauto', 10],
        ['GVL_Sim.eMachineMode', { name: 'eSetup', value: 35 }, 35],
        ['GVL_Sim.eLastErrorType', 3, 3],
      ];
      for (const [path, input, expected] of cases) {
        await t.write(path, input);
        assert.deepEqual((await t.read(path)).value, expected, path);
        assert.deepEqual(plc.read(path), expected, `${path} on the PLC`);
      }
    });

    it('carries enums as integers: reads, batches, struct members, array elements and changes', async () => {
      const slot = `${alarms}.aAlarms[2]`;
      plc.write('GVL_Sim.eMachineMode', 'eService');
      plc.write(`${slot}.ErrorType`, 'WARNING');
      assert.equal((await t.read('GVL_Sim.eMachineMode')).value, 20);
      assert.equal((await t.read(`${slot}.ErrorType`)).value, 2);
      assert.equal(((await t.read(slot)).value as { ErrorType: unknown }).ErrorType, 2);
      const all = (await t.read(`${alarms}.aAlarms`)).value as Array<{ ErrorType: unknown }>;
      assert.deepEqual(
        all.slice(0, 3).map((a) => a.ErrorType),
        [0, 2, 0],
      );
      const batch = await t.readMany(['GVL_Sim.eMachineMode', `${slot}.ErrorType`, slot]);
      assert.deepEqual(batch.slice(0, 2).map(valueOf), [20, 2]);
      assert.equal((valueOf(batch[2]) as { ErrorType: unknown }).ErrorType, 2);
      const log = new EventLog();
      const sub = await t.subscribe('GVL_Sim.eMachineMode', { cycleTimeMs: 10, onChange: log.onChange });
      assert.equal((await log.next(() => true)).value, 20);
      await t.write('GVL_Sim.eMachineMode', 'eSetup');
      assert.equal((await log.next((e) => e.value !== 20)).value, 35);
      await sub.close();
      assert.deepEqual(subject.warnings.take(), []);
    });

    it('writes enums by integer, member name or { name }; a non-member that fits is written with a warning', async () => {
      const mode = 'GVL_Sim.eMachineMode';
      const cases: Array<[unknown, number]> = [
        [20, 20],
        ['ESETUP', 35],
        [{ name: 'eAuto' }, 10],
        [-1, -1],
      ];
      for (const [input, expected] of cases) {
        await t.write(mode, input);
        assert.equal((await t.read(mode)).value, expected, JSON.stringify(input));
      }
      assert.deepEqual(subject.warnings.take(), []);

      await t.write(mode, 7);
      assert.equal(plc.read(mode), 7);
      assert.equal((await t.read(mode)).value, 7);
      assert.deepEqual(subject.warnings.take(), [
        {
          fields: { plcId: t.id, symbol: mode, value: 7, typeName: 'E_MachineMode' },
          message: `${mode}: wrote 7, which is no member of E_MachineMode (the PLC holds it as is)`,
        },
      ]);

      // Inside a struct, and in a batch next to an item that fails (which warns about nothing).
      const slot = `${alarms}.aAlarms[3]`;
      const results = await t.writeMany([
        { symbol: slot, value: { ErrorType: 9, ErrorCode: 42 } },
        { symbol: `${alarms}.aAlarms[4]`, value: { ErrorType: 8, nope: 1 } },
        { symbol: 'GVL_Sim.eLastErrorType', value: 'WARNING' },
      ]);
      assert.deepEqual(results[0], { symbol: slot });
      assert.equal((results[1] as { error: { code: string } }).error.code, 'TYPE_MISMATCH');
      assert.deepEqual(results[2], { symbol: 'GVL_Sim.eLastErrorType' });
      assert.equal(plc.read(`${slot}.ErrorType`), 9);
      assert.equal(plc.read(`${alarms}.aAlarms[4].ErrorType`), 0);
      assert.deepEqual(
        subject.warnings.take().map((w) => w.fields),
        [{ plcId: t.id, symbol: `${slot}.ErrorType`, value: 9, typeName: 'E_ErrorType' }],
      );

      // Outside the base type it is no value the PLC can hold: refused, nothing written, no warning.
      await assert.rejects(t.write(mode, 40000), code('TYPE_MISMATCH'));
      await assert.rejects(t.write(mode, { name: 'eNope' }), code('TYPE_MISMATCH'));
      assert.equal(plc.read(mode), 7);
      assert.deepEqual(subject.warnings.take(), []);
    });

    it('merges a partial struct write over the current value', async () => {
      await t.write(axis, { sComponent: 'Lift', rTargetPos: 120.5 });
      const v = (await t.read(axis)).value as Record<string, unknown>;
      assert.equal(v.sComponent, 'Lift');
      assert.equal(v.rTargetPos, 120.5);
      assert.equal(v.sId, 'cell.z');
      assert.equal(v.sUnit, 'mm');
      await t.write('GVL_HMI.aParts', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
      assert.deepEqual(plc.read('GVL_HMI.aParts'), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    });

    it('partial struct and array writes change only what they name while a sibling changes', async () => {
      // The PLC changes a sibling member every millisecond; a write that put back a value it read
      // earlier would make the sibling go back.
      const sibling = `${axis}.rVelocity`;
      const element = 'GVL_HMI.aAxes[3].rVelocity';
      let n = 0;
      let stale = 0;
      plc.write(sibling, 0);
      plc.write(element, 0);
      const timer = setInterval(() => {
        if (plc.read(sibling) !== n || plc.read(element) !== n) stale++;
        n++;
        plc.write(sibling, n);
        plc.write(element, n);
      }, 1);
      try {
        for (let i = 0; i < 100; i++) {
          await t.write(axis, { rTargetPos: i, bEnabled: i % 2 === 0 });
          const axes = plc.read('GVL_HMI.aAxes') as unknown[];
          await t.write(
            'GVL_HMI.aAxes',
            axes.map((_, k) => ({ rMin: i + k })),
          );
          await t.writeMany([
            { symbol: axis, value: { rMax: 1000 + i } },
            { symbol: 'GVL_HMI.aAxes[3]', value: { rMin: -i, sUnit: 'cm' } },
          ]);
          // An in-process PLC answers without a turn of the event loop: give its scan a chance too.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } finally {
        clearInterval(timer);
      }
      assert.equal(stale, 0, `the sibling went back ${stale} times in ${n} changes`);
      assert.ok(n >= 100, `the sibling changed ${n} times`);
      const v = plc.read(axis) as Record<string, unknown>;
      assert.deepEqual([v.rTargetPos, v.bEnabled, v.rMin, v.rMax], [99, false, 100, 1099]);
      assert.deepEqual(plc.read('GVL_HMI.aAxes[3].rMin'), -99);
      assert.equal(plc.read('GVL_HMI.aAxes[3].sUnit'), 'cm');
      assert.equal(plc.read(`${axis}.sId`), 'cell.z');
    });

    it('refuses values that do not fit, before anything is written', async () => {
      plc.write('MAIN.nInt', 7);
      const bad: Array<[string, unknown]> = [
        ['MAIN.nInt', 'seven'],
        ['MAIN.nInt', 40000],
        ['MAIN.nInt', 1.5],
        ['MAIN.nLint', 'x12'],
        ['MAIN.bFlag', 1],
        ['MAIN.dDate', '2024-05-01T10:00:00Z'],
        ['MAIN.tTod', 86_400_000],
        ['MAIN.sText', 'x'.repeat(41)],
        ['GVL_Sim.eMachineMode', 'eNope'],
        [axis, { nope: 1 }],
        [axis, { sId: 5 }],
        ['GVL_HMI.aParts', ['only one']],
      ];
      for (const [path, value] of bad) {
        const before = plc.read(path);
        await assert.rejects(t.write(path, value), code('TYPE_MISMATCH'), path);
        assert.deepEqual(plc.read(path), before, `${path} unchanged`);
      }
      await assert.rejects(t.write('MAIN.nope', 1), code('SYMBOL_NOT_FOUND'));
    });

    it('reads a batch with per-path errors, in request order', async () => {
      plc.write('MAIN.nDint', 123456);
      const items = await t.readMany([
        'MAIN.nDint',
        'MAIN.nope',
        `${axis}.sId`,
        'GVL_HMI.aAxes[99]',
        'MAIN.nDint',
      ]);
      assert.deepEqual(
        items.map((i) => i.symbol),
        ['MAIN.nDint', 'MAIN.nope', `${axis}.sId`, 'GVL_HMI.aAxes[99]', 'MAIN.nDint'],
      );
      assert.equal(valueOf(items[0]), 123456);
      assert.equal(valueOf(items[2]), 'cell.z');
      assert.equal(valueOf(items[4]), 123456);
      for (const i of [1, 3]) {
        const item = items[i];
        assert.ok(item && 'error' in item);
        assert.equal(item.error.code, 'SYMBOL_NOT_FOUND');
      }
      const ok = items[0];
      assert.ok(ok && 'typeName' in ok);
      assert.equal(ok.typeName, 'DINT');
      assert.deepEqual(await t.readMany([]), []);
    });

    it('writes a batch: valid items land, a bad item fails alone', async () => {
      plc.write('MAIN.nUint', 1);
      const results = await t.writeMany([
        { symbol: 'MAIN.nDint', value: -5 },
        { symbol: 'MAIN.nUint', value: -1 },
        { symbol: 'MAIN.nope', value: 1 },
        { symbol: `${axis}.bEnabled`, value: false },
        { symbol: axis, value: { sUnit: 'cm' } },
      ]);
      assert.deepEqual(results[0], { symbol: 'MAIN.nDint' });
      assert.equal((results[1] as { error: { code: string } }).error.code, 'TYPE_MISMATCH');
      assert.equal((results[2] as { error: { code: string } }).error.code, 'SYMBOL_NOT_FOUND');
      assert.deepEqual(results[3], { symbol: `${axis}.bEnabled` });
      assert.deepEqual(results[4], { symbol: axis });
      assert.equal(plc.read('MAIN.nDint'), -5);
      assert.equal(plc.read('MAIN.nUint'), 1);
      assert.equal(plc.read(`${axis}.bEnabled`), false);
      assert.equal(plc.read(`${axis}.sUnit`), 'cm');
      assert.equal(plc.read(`${axis}.sId`), 'cell.z');
    });

    it('subscribes: current value first, then changes; subscribers share and close independently', async () => {
      plc.write('MAIN.nUdint', 10);
      const a = new EventLog();
      const b = new EventLog();
      const subA = await t.subscribe('MAIN.nUdint', {
        cycleTimeMs: 10,
        onChange: a.onChange,
        onError: a.onError,
      });
      const first = await a.next(() => true);
      assert.deepEqual([first.symbol, first.value, first.typeName], ['MAIN.nUdint', 10, 'UDINT']);
      assert.ok(first.timestamp instanceof Date);
      const subB = await t.subscribe('main.nudint', { cycleTimeMs: 50, onChange: b.onChange });
      assert.equal(subB.symbol, 'main.nudint');
      assert.equal((await b.next(() => true)).value, 10);
      await t.write('MAIN.nUdint', 11);
      assert.equal((await a.next((e) => e.value === 11)).symbol, 'MAIN.nUdint');
      assert.equal((await b.next((e) => e.value === 11)).symbol, 'main.nudint');
      await subA.close();
      const seenA = a.events.length;
      await t.write('MAIN.nUdint', 12);
      await b.next((e) => e.value === 12);
      assert.equal(a.events.length, seenA);
      await subB.close();
      await subB.close();
      assert.deepEqual(a.errors, []);
    });

    it('subscribes to structs and refuses unknown symbols', async () => {
      const log = new EventLog();
      const sub = await t.subscribe(`${axis}`, { cycleTimeMs: 10, onChange: log.onChange });
      const first = await log.next(() => true);
      assert.equal(first.typeName, 'ST_HmiAxis');
      assert.deepEqual(first.value, plc.read(axis));
      await t.write(`${axis}.rTargetPos`, 42);
      const changed = await log.next((e) => (e.value as { rTargetPos: number }).rTargetPos === 42);
      assert.equal((changed.value as { sId: string }).sId, 'cell.z');
      await sub.close();
      await assert.rejects(
        t.subscribe('MAIN.nope', { cycleTimeMs: 10, onChange: () => undefined }),
        code('SYMBOL_NOT_FOUND'),
      );
    });

    it('calls methods with positional or named parameters', async () => {
      const byPosition = await t.invoke(alarms, 'AcknowledgeAlarm', ['nothing-outstanding']);
      assert.deepEqual(byPosition, { returnValue: false, outParameters: {} });
      const byName = await t.invoke(alarms, 'acknowledgealarm', { SKEY: 'x' });
      assert.deepEqual(byName, { returnValue: false, outParameters: {} });
      await assert.rejects(t.invoke(alarms, 'AcknowledgeAlarm', []), code('TYPE_MISMATCH'));
      await assert.rejects(t.invoke(alarms, 'AcknowledgeAlarm', [5]), code('TYPE_MISMATCH'));
      await assert.rejects(t.invoke(alarms, 'AcknowledgeAlarm', { nope: 'x' }), code('TYPE_MISMATCH'));
      await assert.rejects(t.invoke(alarms, 'Nope', []), code('SYMBOL_NOT_FOUND'));
      await assert.rejects(t.invoke('GVL_HMI.nope', 'AcknowledgeAlarm', []), code('SYMBOL_NOT_FOUND'));
    });

    it('changes the run state and answers the state read back', async () => {
      assert.equal(await t.setAdsState('Stop'), 'Stop');
      assert.equal((await t.deviceState()).state, 'Stop');
      assert.equal(await t.setAdsState('Run'), 'Run');
      assert.equal(await t.setAdsState('Reset'), 'Stop');
      assert.equal(await t.setAdsState('Run'), 'Run');
      assert.equal((await t.deviceInfo()).adsState, 'Run');
    });

    it('reads, writes and lists files', async () => {
      const content = Buffer.from([0, 1, 2, 250, 255, ...Buffer.from('recipe;7\n')]);
      await t.files.write('recipes/r7.csv', content);
      assert.deepEqual(await t.files.read('recipes/r7.csv'), content);
      await t.files.write('recipes/r7.csv', Buffer.from('v2'));
      assert.equal((await t.files.read('recipes/r7.csv')).toString(), 'v2');
      const big = Buffer.alloc(200_000, 7);
      await t.files.write('big.bin', big);
      assert.ok((await t.files.read('big.bin')).equals(big));
      const root = await t.files.list('');
      assert.deepEqual(
        root.map((e) => [e.name, e.type, e.size]),
        [
          ['big.bin', 'file', 200_000],
          ['recipes', 'dir', 0],
        ],
      );
      const dir = await t.files.list('recipes');
      assert.deepEqual(
        dir.map((e) => [e.name, e.type, e.size]),
        [['r7.csv', 'file', 2]],
      );
      assert.ok(dir[0]?.modified instanceof Date);
      await assert.rejects(t.files.read('recipes/none.csv'), code('FILE_NOT_FOUND'));
      await assert.rejects(t.files.list('none'), code('FILE_NOT_FOUND'));
      await assert.rejects(t.files.list('recipes/r7.csv'), code('VALIDATION_ERROR'));
      await assert.rejects(t.files.read('../etc/passwd'), code('VALIDATION_ERROR'));
      await assert.rejects(t.files.write('/abs.txt', Buffer.from('x')), code('VALIDATION_ERROR'));
    });

    it('lists no EtherCAT master for a system without EtherCAT, and MASTER_NOT_FOUND for one', async () => {
      assert.deepEqual(await t.etherCat.masters(), []);
      const ghost = { deviceId: 2, name: 'EtherCAT Master', amsNetId: '127.0.0.1.3.1' };
      await assert.rejects(t.etherCat.read(ghost), code('MASTER_NOT_FOUND'));
      await assert.rejects(t.etherCat.resetErrorCounters(ghost, 1001), code('MASTER_NOT_FOUND'));
    });

    it('reports state changes and answers PLC_UNAVAILABLE once closed', async () => {
      const states: string[] = [];
      const off = t.onConnectionState((s) => states.push(s));
      await t.close();
      off();
      assert.equal(t.connectionState(), 'Disconnected');
      assert.deepEqual(states, ['Disconnected']);
      await assert.rejects(t.read('MAIN.nInt'), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.readMany(['MAIN.nInt']), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.write('MAIN.nInt', 1), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.symbols(), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.deviceInfo(), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.files.read('recipes/r7.csv'), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.files.list(''), code('PLC_UNAVAILABLE'));
      await assert.rejects(t.etherCat.masters(), code('PLC_UNAVAILABLE'));
      await assert.rejects(
        t.subscribe('MAIN.nInt', { cycleTimeMs: 10, onChange: () => undefined }),
        code('PLC_UNAVAILABLE'),
      );
    });
  });
}
