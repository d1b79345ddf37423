import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import type { ChangeEvent } from '../../../src/targets/target.ts';
import { baseProgramBuilder, createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { targetSettings, testConfig } from './helpers.ts';

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

async function started(
  values: Record<string, unknown> = {},
  extra: Parameters<typeof targetSettings>[0] = {},
) {
  const t = await createSimulatedTarget(
    'sim1',
    targetSettings({ InitialValues: values as never, ...extra }),
    testConfig(),
  );
  await t.start();
  return t;
}

describe('simulated target: connection and device', () => {
  it('connects on start and moves through the states on reconnect', async () => {
    const t = await createSimulatedTarget('sim1', targetSettings(), testConfig());
    const states: string[] = [];
    t.onConnectionState((s) => states.push(s));
    assert.equal(t.mode, 'Simulated');
    assert.equal(t.connectionState(), 'Disconnected');
    await assert.rejects(t.deviceInfo(), code('PLC_UNAVAILABLE'));
    await t.start();
    assert.equal(t.connectionState(), 'Connected');
    t.disconnect();
    await assert.rejects(t.read('GVL_Sim.eMachineMode'), code('PLC_UNAVAILABLE'));
    t.reconnect();
    assert.deepEqual(states, ['Connecting', 'Connected', 'Disconnected', 'Connecting', 'Connected']);
    await t.close();
    assert.equal(t.connectionState(), 'Disconnected');
  });

  it('device info, device state and lifecycle', async () => {
    const t = await started();
    assert.deepEqual(await t.deviceInfo(), { deviceName: 'Plc30 App', version: '3.1.4024', adsState: 'Run' });
    assert.equal(await t.setAdsState('Stop'), 'Stop');
    assert.equal(await t.setAdsState('Run'), 'Run');
    assert.equal(await t.setAdsState('Reset'), 'Stop');
    const st = await t.deviceState();
    assert.equal(st.state, 'Stop');
    assert.ok(st.timestamp instanceof Date);
  });
});

describe('simulated target: symbols and enums', () => {
  it('publishes the built-in enums and symbols using them', async () => {
    const t = await started({ 'MAIN.n': { value: 1, type: 'INT' } });
    const tree = await t.symbols();
    assert.deepEqual(
      tree.map((n) => [n.instancePath, n.typeName, n.children]),
      [
        ['GVL_Sim.eLastErrorType', 'E_ErrorType', null],
        ['GVL_Sim.eMachineMode', 'E_MachineMode', null],
        ['MAIN.n', 'INT', null],
      ],
    );
    assert.deepEqual(await t.enumMembers('e_machinemode'), {
      typeName: 'E_MachineMode',
      members: [
        { name: 'eManual', value: -1 },
        { name: 'eAuto', value: 10 },
        { name: 'eService', value: 20 },
        { name: 'eSetup', value: 35 },
      ],
    });
    assert.equal((await t.read('GVL_Sim.eMachineMode')).value, -1);
    assert.equal((await t.enumMembers('E_ErrorType')).members.length, 4);
    await assert.rejects(t.enumMembers('E_Nope'), code('TYPE_NOT_FOUND'));
    await assert.rejects(
      t.enumMembers('INT'),
      (e: unknown) =>
        e instanceof AppError && e.code === 'VALIDATION_ERROR' && /INT is not an enum/.test(e.message),
    );
  });

  it('enum answers survive a program download until reconnect', async () => {
    const t = await started();
    await t.enumMembers('E_ErrorType');
    const b = new ProgramBuilder();
    b.enum('E_ErrorType', [
      { name: 'NONE', value: 0 },
      { name: 'CRITICAL', value: 9 },
    ]);
    b.enum('E_Fresh', [{ name: 'A', value: 1 }]);
    t.plc.load(b.build());
    assert.equal((await t.enumMembers('E_ErrorType')).members.length, 4);
    // Not cached before the download, but the type system was snapshotted by the first call.
    await assert.rejects(t.enumMembers('E_Fresh'), code('TYPE_NOT_FOUND'));
    t.reconnect();
    assert.deepEqual((await t.enumMembers('E_ErrorType')).members, [
      { name: 'NONE', value: 0 },
      { name: 'CRITICAL', value: 9 },
    ]);
    assert.equal((await t.enumMembers('E_Fresh')).typeName, 'E_Fresh');
  });
});

describe('simulated target: variables', () => {
  it('read, readMany, write, writeMany', async () => {
    const t = await started({ 'MAIN.Speed': { value: 1500, type: 'DINT' }, 'MAIN.sName': 'a' });
    const r = await t.read('main.speed');
    assert.equal(r.symbol, 'main.speed');
    assert.equal(r.value, 1500);
    assert.equal(r.typeName, 'DINT');
    const many = await t.readMany(['MAIN.Speed', 'MAIN.nope']);
    assert.equal((many[0] as { value: unknown }).value, 1500);
    assert.deepEqual((many[1] as { error: { code: string } }).error.code, 'SYMBOL_NOT_FOUND');
    await t.write('MAIN.Speed', 7);
    assert.equal((await t.read('MAIN.Speed')).value, 7);
    await assert.rejects(t.write('MAIN.Speed', 'x'), code('TYPE_MISMATCH'));
    await t.write('GVL_Sim.eMachineMode', 'eSetup');
    assert.equal((await t.read('GVL_Sim.eMachineMode')).value, 35);
    const results = await t.writeMany([
      { symbol: 'MAIN.Speed', value: 8 },
      { symbol: 'MAIN.sName', value: 'x'.repeat(81) },
      { symbol: 'MAIN.gone', value: 1 },
      { symbol: 'MAIN.sName', value: 'ok' },
    ]);
    assert.deepEqual(
      results.map((x) => ('error' in x ? x.error.code : 'ok')),
      ['ok', 'TYPE_MISMATCH', 'SYMBOL_NOT_FOUND', 'ok'],
    );
    assert.equal((await t.read('MAIN.Speed')).value, 8);
    assert.equal((await t.read('MAIN.sName')).value, 'ok');
  });

  it('invoke through the port', async () => {
    const t = await started();
    const b = baseProgramBuilder('sim1', targetSettings());
    b.functionBlock(
      'FB_Calc',
      [{ name: 'nLast', type: 'DINT' }],
      [
        {
          name: 'Add',
          returnType: 'DINT',
          parameters: [
            { name: 'a', type: 'DINT' },
            { name: 'b', type: 'DINT' },
          ],
          implementation: ({ plc, instancePath }, { a, b: bb }) => {
            const sum = (a as number) + (bb as number);
            plc.write(`${instancePath}.nLast`, sum);
            return { returnValue: sum };
          },
        },
      ],
    );
    b.symbol('MAIN.fbCalc', 'FB_Calc');
    t.plc.load(b.build());
    const events: ChangeEvent[] = [];
    await t.subscribe('MAIN.fbCalc.nLast', { cycleTimeMs: 100, onChange: (e) => events.push(e) });
    await Promise.resolve();
    assert.deepEqual(await t.invoke('MAIN.fbCalc', 'add', [2, 3]), { returnValue: 5, outParameters: {} });
    assert.deepEqual(await t.invoke('MAIN.fbCalc', 'Add', { A: 1, b: 1 }), {
      returnValue: 2,
      outParameters: {},
    });
    assert.deepEqual(
      events.map((e) => e.value),
      [0, 5, 2],
    );
    await assert.rejects(t.invoke('MAIN.fbCalc', 'Sub', []), code('SYMBOL_NOT_FOUND'));
    await assert.rejects(t.invoke('MAIN.fbCalc', 'Add', [1]), code('TYPE_MISMATCH'));
  });
});

describe('simulated target: subscriptions', () => {
  it('initial value, then on-change events; close stops them', async () => {
    const t = await started({ 'MAIN.n': { value: 1, type: 'INT' } });
    const events: ChangeEvent[] = [];
    const sub = await t.subscribe('MAIN.n', { cycleTimeMs: 50, onChange: (e) => events.push(e) });
    assert.equal(sub.symbol, 'MAIN.n');
    await Promise.resolve();
    await t.write('MAIN.n', 2);
    await t.write('MAIN.n', 2);
    t.plc.memory.writeInt16LE(3, t.plc.resolve('MAIN.n').offset);
    t.plc.sample({ immediate: true });
    assert.deepEqual(
      events.map((e) => [e.symbol, e.value, e.typeName]),
      [
        ['MAIN.n', 1, 'INT'],
        ['MAIN.n', 2, 'INT'],
        ['MAIN.n', 3, 'INT'],
      ],
    );
    assert.ok(events[0]!.timestamp instanceof Date);
    t.disconnect();
    await assert.rejects(t.write('MAIN.n', 9), code('PLC_UNAVAILABLE'));
    t.plc.write('MAIN.n', 5);
    t.plc.sample();
    assert.equal(events.length, 3);
    t.reconnect();
    assert.deepEqual(
      events.map((e) => e.value),
      [1, 2, 3, 5],
    );
    await sub.close();
    await t.write('MAIN.n', 4);
    assert.equal(events.length, 4);
    assert.equal(t.plc.watchCount, 0);
    await assert.rejects(
      t.subscribe('MAIN.none', { cycleTimeMs: 50, onChange: () => undefined }),
      code('SYMBOL_NOT_FOUND'),
    );
  });

  it('a download that removes the symbol reports SYMBOL_INVALIDATED', async () => {
    const t = await started({ 'MAIN.n': { value: 1, type: 'INT' } });
    const errors: Array<{ code: string }> = [];
    await t.subscribe('MAIN.n', {
      cycleTimeMs: 50,
      onChange: () => undefined,
      onError: (e) => errors.push(e),
    });
    t.plc.load(new ProgramBuilder().build());
    assert.deepEqual(
      errors.map((e) => e.code),
      ['SYMBOL_INVALIDATED'],
    );
    assert.equal(t.plc.watchCount, 0);
  });
});

describe('simulated target: files', () => {
  it('in memory by default', async () => {
    const t = await started();
    await t.files.write('a/b.txt', Buffer.from('hi'));
    assert.equal((await t.files.read('a/b.txt')).toString(), 'hi');
    assert.deepEqual(
      (await t.files.list('a')).map((e) => [e.name, e.type, e.size]),
      [['b.txt', 'file', 2]],
    );
    await assert.rejects(t.files.read('../x'), code('VALIDATION_ERROR'));
  });

  it('a real folder with FileRoot: atomic replace, no escaping the root', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plc-files-'));
    try {
      const outside = await mkdtemp(join(tmpdir(), 'plc-outside-'));
      await writeFile(join(outside, 'secret'), 'nope');
      const t = await createSimulatedTarget('sim1', targetSettings({ FileRoot: 'root' }), testConfig(dir));
      await t.start();
      assert.deepEqual(await t.files.list(''), []);
      await t.files.write('recipes/r1.json', Buffer.from('{"v":1}'));
      await t.files.write('recipes/r1.json', Buffer.from('{"v":2}'));
      assert.equal((await t.files.read('recipes/r1.json')).toString(), '{"v":2}');
      assert.deepEqual(await readdir(join(dir, 'root', 'recipes')), ['r1.json']);
      const list = await t.files.list('');
      assert.deepEqual(
        list.map((e) => [e.name, e.type, e.size]),
        [['recipes', 'dir', 0]],
      );
      assert.ok(list[0]!.modified instanceof Date);
      await assert.rejects(t.files.read('recipes/none'), code('FILE_NOT_FOUND'));
      await assert.rejects(t.files.list('nope'), code('FILE_NOT_FOUND'));
      for (const bad of ['../x', '/etc/passwd', 'a\\b', 'a\0b']) {
        await assert.rejects(t.files.read(bad), code('VALIDATION_ERROR'));
        await assert.rejects(t.files.write(bad, Buffer.from('x')), code('VALIDATION_ERROR'));
      }
      await symlink(outside, join(dir, 'root', 'link'));
      await assert.rejects(t.files.read('link/secret'), code('VALIDATION_ERROR'));
      await assert.rejects(t.files.write('link/new', Buffer.from('x')), code('VALIDATION_ERROR'));
      await rm(outside, { recursive: true, force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
