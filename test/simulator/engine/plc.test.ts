import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { ProgramBuilder, SimulatedPlc, type WatchChange } from '../../../src/simulator/engine/index.ts';

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

function build(extra?: (b: ProgramBuilder) => void) {
  const b = new ProgramBuilder();
  b.enum('E_AckResult', [
    { name: 'SUCCESS', value: 0 },
    { name: 'NOT_FOUND', value: 1 },
  ]);
  b.struct('ST_Entry', [
    { name: 'sKey', type: 'STRING' },
    { name: 'bAcked', type: 'BOOL' },
  ]);
  b.functionBlock(
    'FB_Alarms',
    [{ name: 'aAlarms', type: 'ARRAY [1..2] OF ST_Entry' }],
    [
      {
        name: 'AcknowledgeAlarm',
        returnType: 'BOOL',
        parameters: [{ name: 'sKey', type: 'STRING' }],
        implementation: ({ plc, instancePath }, { sKey }) => {
          for (const i of [1, 2]) {
            if (plc.read(`${instancePath}.aAlarms[${i}].sKey`) === sKey) {
              plc.write(`${instancePath}.aAlarms[${i}].bAcked`, true);
              return { returnValue: true };
            }
          }
          return { returnValue: false };
        },
      },
      {
        name: 'Split',
        returnType: 'E_AckResult',
        parameters: [
          { name: 'nIn', type: 'LINT' },
          { name: 'nHigh', type: 'UDINT', direction: 'out' },
          { name: 'nLow', type: 'UDINT', direction: 'out' },
          { name: 'nCount', type: 'INT', direction: 'inout' },
        ],
        implementation: (_ctx, { nIn, nCount }) => {
          const v = BigInt(nIn as string);
          return {
            returnValue: 'not_found',
            outputs: {
              NHIGH: Number(v >> 32n),
              nLow: Number(v & 0xffffffffn),
              nCount: (nCount as number) + 1,
            },
          };
        },
      },
      { name: 'NoBody', returnType: null },
    ],
  );
  b.symbol('MAIN.fbAlarms', 'FB_Alarms', {
    value: { aAlarms: [{ sKey: 'A1' }, { sKey: 'B2' }] },
  });
  b.symbol('MAIN.nSpeed', 'DINT', { value: 1500 });
  b.symbol('MAIN.stPair', 'ST_Entry');
  extra?.(b);
  return b.build();
}

describe('SimulatedPlc', () => {
  it('reads and writes by path, validated, with external-write events', () => {
    const plc = new SimulatedPlc(build());
    const writes: Array<[number, number]> = [];
    plc.onExternalWrite((o, s) => writes.push([o, s]));
    assert.equal(plc.read('main.nspeed'), 1500);
    plc.write('MAIN.nSpeed', -3);
    assert.equal(plc.read('MAIN.nSpeed'), -3);
    const r = plc.resolve('MAIN.nSpeed');
    assert.deepEqual(writes, [[r.offset, 4]]);
    assert.throws(() => plc.write('MAIN.nSpeed', 'x'), code('TYPE_MISMATCH'));
    assert.throws(() => plc.write('MAIN.nope', 1), code('SYMBOL_NOT_FOUND'));
    assert.equal(plc.read('MAIN.nSpeed'), -3);
    assert.equal(writes.length, 1);
    assert.equal(plc.memory.readInt32LE(r.offset), -3);
  });

  it('commits a batch in order; partial struct writes see earlier items', () => {
    const plc = new SimulatedPlc(build());
    const a = plc.prepareWrite('MAIN.stPair.bAcked', true);
    const b = plc.prepareWrite('MAIN.stPair', { sKey: 'k' });
    plc.commit([a, b]);
    assert.deepEqual(plc.read('MAIN.stPair'), { sKey: 'k', bAcked: true });
  });

  it('raw access by offset', () => {
    const plc = new SimulatedPlc(build());
    const off = plc.resolve('MAIN.nSpeed').offset;
    assert.equal(plc.readRaw(off, 4).readInt32LE(0), 1500);
    plc.writeRaw(off, Buffer.from([1, 0, 0, 0]));
    assert.equal(plc.read('MAIN.nSpeed'), 1);
    assert.equal(plc.inRange(plc.memory.length - 1, 2), false);
    assert.throws(() => plc.readRaw(plc.memory.length, 1), code('VALIDATION_ERROR'));
  });

  it('ADS state, device info and clock', () => {
    let t = 1000;
    const plc = new SimulatedPlc(build(), { clock: () => t });
    const states: string[] = [];
    plc.onStateChange((s) => states.push(s));
    assert.equal(plc.adsState, 'Run');
    assert.equal(plc.setState('Stop'), 'Stop');
    assert.equal(plc.setState('Run'), 'Run');
    assert.equal(plc.setState('Reset'), 'Stop');
    assert.deepEqual(states, ['Stop', 'Run', 'Stop']);
    assert.deepEqual(plc.deviceInfo(), {
      deviceName: 'Plc30 App',
      version: '3.1.4024',
      major: 3,
      minor: 1,
      build: 4024,
      adsState: 'Stop',
    });
    t = 2000;
    assert.equal(plc.now(), 2000);
  });

  it('load replaces program and memory and bumps the symbol version (u8, wrapping)', () => {
    const plc = new SimulatedPlc(build());
    plc.write('MAIN.nSpeed', 1);
    const versions: number[] = [];
    plc.onLoad((_p, v) => versions.push(v));
    const next = build((b) => b.symbol('MAIN.bNew', 'BOOL', { value: true }));
    plc.load(next);
    assert.equal(plc.program, next);
    assert.equal(plc.read('MAIN.nSpeed'), 1500);
    assert.equal(plc.read('MAIN.bNew'), true);
    for (let i = 0; i < 255; i++) plc.load(next);
    assert.equal(versions.length, 256);
    assert.equal(versions[0], 2);
    assert.equal(plc.symbolVersion, 1);
  });
});

describe('watch and sample', () => {
  it('reports changed bytes once per change', () => {
    const plc = new SimulatedPlc(build());
    const seen: WatchChange[] = [];
    const w = plc.watch('main.nSpeed', (c) => seen.push(c));
    plc.sample();
    assert.equal(seen.length, 0);
    plc.memory.writeInt32LE(7, w.offset);
    plc.sample();
    plc.sample();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.path, 'MAIN.nSpeed');
    assert.equal(seen[0]!.type!.name, 'DINT');
    assert.equal(seen[0]!.data.readInt32LE(0), 7);
    w.close();
    plc.memory.writeInt32LE(8, w.offset);
    plc.sample();
    assert.equal(seen.length, 1);
    assert.equal(plc.watchCount, 0);
  });

  it('raw range watches', () => {
    const plc = new SimulatedPlc(build());
    const off = plc.resolve('MAIN.stPair.bAcked').offset;
    const seen: number[] = [];
    plc.watch({ offset: off, size: 1 }, (c) => seen.push(c.data[0]!));
    plc.write('MAIN.stPair.bAcked', true);
    plc.sample();
    assert.deepEqual(seen, [1]);
    assert.throws(
      () => plc.watch({ offset: plc.memory.length, size: 1 }, () => undefined),
      code('VALIDATION_ERROR'),
    );
  });

  it('cycle time throttles checks in PLC-clock time; immediate ignores it', () => {
    let now = 0;
    const plc = new SimulatedPlc(build(), { clock: () => now });
    const seen: unknown[] = [];
    const w = plc.watch('MAIN.nSpeed', (c) => seen.push(c.data.readInt32LE(0)), { cycleTimeMs: 100 });
    plc.memory.writeInt32LE(1, w.offset);
    plc.sample();
    plc.memory.writeInt32LE(2, w.offset);
    now = 50;
    plc.sample();
    assert.deepEqual(seen, [1]);
    now = 100;
    plc.sample();
    assert.deepEqual(seen, [1, 2]);
    plc.memory.writeInt32LE(3, w.offset);
    now = 120;
    plc.sample({ immediate: true });
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('a watch keeps its cycle grid when samples come late, and a long gap is one check', () => {
    let now = 0;
    const plc = new SimulatedPlc(build(), { clock: () => now });
    const seen: Array<[number, number]> = [];
    const w = plc.watch('MAIN.nSpeed', (c) => seen.push([now, c.data.readInt32LE(0)]), { cycleTimeMs: 100 });
    const writeThenSample = (value: number, at: number) => {
      plc.memory.writeInt32LE(value, w.offset);
      now = at;
      plc.sample();
    };
    writeThenSample(1, 0);
    // Ticks of 10.3 ms: the check due at 100 happens at 103, the one due at 200 at 206 (not at 206 + 103 = 309).
    writeThenSample(2, 103);
    writeThenSample(3, 199);
    writeThenSample(4, 206);
    assert.deepEqual(seen, [
      [0, 1],
      [103, 2],
      [206, 4],
    ]);
    // A gap of several cycles is one check; the next is due at the following grid point.
    writeThenSample(5, 555);
    writeThenSample(6, 599);
    writeThenSample(7, 600);
    assert.deepEqual(seen.slice(3), [
      [555, 5],
      [600, 7],
    ]);
  });

  it('program download rebinds path watches or invalidates them', () => {
    const plc = new SimulatedPlc(build());
    const invalid: string[] = [];
    const seen: unknown[] = [];
    const keep = plc.watch('MAIN.nSpeed', (c) => seen.push(c.data.readInt32LE(0)));
    plc.watch('MAIN.stPair', () => undefined, { onInvalidated: (r) => invalid.push(r) });
    plc.watch({ offset: 0, size: 1 }, () => undefined, { onInvalidated: (r) => invalid.push(r) });
    const b = new ProgramBuilder();
    b.symbol('MAIN.bFirst', 'BOOL');
    b.symbol('MAIN.nSpeed', 'DINT', { value: 9 });
    plc.load(b.build());
    assert.equal(invalid.length, 2);
    assert.equal(plc.watchCount, 1);
    assert.equal(keep.offset, plc.resolve('MAIN.nSpeed').offset);
    plc.sample();
    assert.deepEqual(seen, [9]);
  });
});

describe('invoke', () => {
  it('positional and named parameters; the method works on the instance', () => {
    const plc = new SimulatedPlc(build());
    assert.deepEqual(plc.invoke('main.fbalarms', 'acknowledgeAlarm', ['B2']), {
      returnValue: true,
      outParameters: {},
    });
    assert.equal(plc.read('MAIN.fbAlarms.aAlarms[2].bAcked'), true);
    assert.deepEqual(plc.invoke('MAIN.fbAlarms', 'AcknowledgeAlarm', { skey: 'zz' }), {
      returnValue: false,
      outParameters: {},
    });
  });
  it('out and inout parameters, enum return values and 64-bit inputs', () => {
    const plc = new SimulatedPlc(build());
    const r = plc.invoke('MAIN.fbAlarms', 'Split', { nIn: '4294967298', nCount: 4 });
    assert.deepEqual(r, {
      returnValue: 1,
      outParameters: { nHigh: 1, nLow: 2, nCount: 5 },
      returnMember: 'NOT_FOUND',
    });
  });
  it('refuses unknown methods, bad parameters and bodiless methods', () => {
    const plc = new SimulatedPlc(build());
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'Nope', []), code('SYMBOL_NOT_FOUND'));
    assert.throws(() => plc.invoke('MAIN.nSpeed', 'AcknowledgeAlarm', []), code('SYMBOL_NOT_FOUND'));
    assert.throws(() => plc.invoke('MAIN.none', 'AcknowledgeAlarm', []), code('SYMBOL_NOT_FOUND'));
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'AcknowledgeAlarm', []), code('TYPE_MISMATCH'));
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'AcknowledgeAlarm', [5]), code('TYPE_MISMATCH'));
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'AcknowledgeAlarm', { key: 'x' }), code('TYPE_MISMATCH'));
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'Split', { nIn: '1' }), /missing parameter\(s\) nCount/);
    assert.throws(() => plc.invoke('MAIN.fbAlarms', 'NoBody', []), code('ADS_ERROR'));
  });
  it('methods carry the TcRpcEnable attribute', () => {
    const t = build().types.resolve('FB_Alarms');
    assert.equal(t.kind, 'struct');
    if (t.kind === 'struct') assert.deepEqual(t.methods[0]!.attributes, [{ name: 'TcRpcEnable', value: '' }]);
  });
});

describe('ProgramBuilder', () => {
  it('dataTypes lists contained types first, once each', () => {
    const names = build()
      .dataTypes()
      .map((t) => t.name);
    assert.deepEqual(names, ['E_AckResult', 'ST_Entry', 'ARRAY [1..2] OF ST_Entry', 'FB_Alarms']);
  });

  it('refuses duplicates, bad names, bad initial values and use after build', () => {
    const b = new ProgramBuilder();
    b.symbol('MAIN.x', 'INT');
    assert.throws(() => b.symbol('main.X', 'INT'), code('VALIDATION_ERROR'));
    assert.throws(() => b.symbol('MAIN.x[1]', 'INT'), code('VALIDATION_ERROR'));
    assert.throws(() => b.symbol('MAIN.y', 'INT', { value: 1e6 }), code('TYPE_MISMATCH'));
    assert.throws(() => b.method('INT', 'm', () => ({ returnValue: null })), code('VALIDATION_ERROR'));
    b.build();
    assert.throws(() => b.symbol('MAIN.z', 'INT'), code('VALIDATION_ERROR'));
    assert.throws(() => b.struct('ST_Late', []), code('VALIDATION_ERROR'));
  });
});
