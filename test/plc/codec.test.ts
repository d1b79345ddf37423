import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { TypeRegistry, decode, encode, encodeOver } from '../../src/simulator/engine/index.ts';

const reg = new TypeRegistry();
reg.defineEnum('E_MachineMode', [
  { name: 'eManual', value: -1 },
  { name: 'eAuto', value: 10 },
  { name: 'eService', value: 20 },
]);
reg.defineStruct('ST_Point', [
  { name: 'x', type: 'INT' },
  { name: 'y', type: 'LREAL' },
  { name: 'sName', type: 'STRING(5)' },
]);
reg.defineStruct('ST_Outer', [
  { name: 'pt', type: 'ST_Point' },
  { name: 'aFlags', type: 'ARRAY [1..3] OF BOOL' },
]);

function roundTrip(typeName: string, value: unknown): unknown {
  const t = reg.resolve(typeName);
  return decode(t, encode(t, value, 'P'), 0);
}

function mismatch(pattern: RegExp) {
  return (e: unknown) => e instanceof AppError && e.code === 'TYPE_MISMATCH' && pattern.test(e.message);
}

describe('codec round trips', () => {
  const same: Array<[string, unknown]> = [
    ['BOOL', true],
    ['BOOL', false],
    ['SINT', -128],
    ['SINT', 127],
    ['USINT', 255],
    ['BYTE', 0],
    ['INT', -32768],
    ['UINT', 65535],
    ['WORD', 4660],
    ['DINT', -2147483648],
    ['DINT', 2147483647],
    ['UDINT', 0],
    ['UDINT', 4294967295],
    ['DWORD', 4294967295],
    ['LINT', '-9223372036854775808'],
    ['LINT', '9223372036854775807'],
    ['ULINT', '18446744073709551615'],
    ['LWORD', '0'],
    ['LREAL', 1.7976931348623157e308],
    ['LREAL', -0.1],
    ['REAL', 0.5],
    ['REAL', 3.4028234663852886e38],
    ['TIME', 0],
    ['TIME', 4294967295],
    ['TOD', 86399999],
    ['LTIME', '18446744073709551615'],
    ['DATE', '2024-02-29T00:00:00.000Z'],
    ['DT', '2106-02-07T06:28:15.000Z'],
    ['DT', '1970-01-01T00:00:00.000Z'],
    ['STRING(5)', 'abcde'],
    ['STRING(5)', ''],
    ['STRING', 'Grüße €‰ŸÿŽ'],
    ['WSTRING(4)', '日本語x'],
    [
      'ARRAY [1..2,0..2] OF INT',
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
    ['ARRAY [0..1] OF STRING(3)', ['ab', 'xyz']],
  ];
  for (const [type, value] of same) {
    it(`${type} ${JSON.stringify(value)}`, () => assert.deepEqual(roundTrip(type, value), value));
  }

  const normalised: Array<[string, unknown, unknown]> = [
    ['LINT', 42, '42'],
    ['ULINT', 9007199254740991, '9007199254740991'],
    ['LINT', -5n, '-5'],
    ['LTIME', 1500, '1500'],
    ['REAL', 0.1, Math.fround(0.1)],
    ['DATE', '2024-03-01', '2024-03-01T00:00:00.000Z'],
    ['DT', '2024-03-01T12:30:15+02:00', '2024-03-01T10:30:15.000Z'],
    ['DT', '2024-03-01T12:30:15.000Z', '2024-03-01T12:30:15.000Z'],
    ['DT', '2024-03-01T12:30', '2024-03-01T12:30:00.000Z'],
    ['E_MachineMode', 'eauto', 10],
    ['E_MachineMode', -1, -1],
    ['E_MachineMode', 7, 7],
    ['E_MachineMode', { name: 'eService', value: 20 }, 20],
    ['E_MachineMode', { name: 'ESERVICE' }, 20],
    ['E_MachineMode', { name: '', value: 5 }, 5],
    ['ST_Point', { X: 3, y: 2.5, sname: 'ab' }, { x: 3, y: 2.5, sName: 'ab' }],
    ['ST_Point', { y: 1 }, { x: 0, y: 1, sName: '' }],
  ];
  for (const [type, value, expected] of normalised) {
    it(`${type} ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`, () =>
      assert.deepEqual(roundTrip(type, value), expected));
  }
});

describe('codec violations', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['SINT', 128, /^P: 128 is outside SINT/],
    ['SINT', -129, /outside SINT/],
    ['UDINT', -1, /outside UDINT/],
    ['UDINT', 4294967296, /outside UDINT/],
    ['INT', 1.5, /expected an integer for INT/],
    ['INT', '12', /expected an integer for INT, got string/],
    ['BOOL', 1, /expected a boolean/],
    ['LINT', '9223372036854775808', /outside LINT/],
    ['LINT', '-9223372036854775809', /outside LINT/],
    ['ULINT', '-1', /outside ULINT/],
    ['LINT', 2 ** 60, /decimal string or safe integer/],
    ['LINT', '1e3', /decimal string/],
    ['REAL', 3.5e38, /outside the REAL range/],
    ['REAL', Infinity, /finite number/],
    ['LREAL', NaN, /finite number/],
    ['LREAL', '1.0', /finite number/],
    ['STRING(5)', 'abcdef', /6 characters do not fit STRING\(5\)/],
    ['STRING', 'snow ☃', /not in code page 1252/],
    ['STRING', 'a\0b', /NUL/],
    ['STRING', 5, /expected a string/],
    ['WSTRING(4)', 'abcde', /do not fit WSTRING\(4\)/],
    ['TIME', -1, /outside TIME/],
    ['TIME', 4294967296, /outside TIME/],
    ['TIME', 'T#1s', /integer milliseconds/],
    ['TOD', 86400000, /outside TOD/],
    ['DATE', '2024-03-01T12:00:00Z', /midnight/],
    ['DATE', '2024-02-30', /not a valid date/],
    ['DT', '2024-03-01T12:00:00.500Z', /resolution of one second/],
    ['DT', '1969-12-31T23:59:59Z', /outside the DT range/],
    ['DT', 'yesterday', /not an ISO 8601/],
    ['DT', 0, /expected an ISO 8601 string/],
    ['E_MachineMode', 'eNope', /'eNope' is not a member of E_MachineMode \(eManual, eAuto, eService\)/],
    ['E_MachineMode', 40000, /outside the INT base/],
    ['E_MachineMode', true, /expected a member name/],
    ['ST_Point', { z: 1 }, /ST_Point has no member 'z'/],
    ['ST_Point', [1], /expected an object/],
    ['ST_Point', null, /expected an object/],
    ['ST_Outer', { pt: { x: 'a' } }, /^P\.pt\.x: expected an integer/],
    ['ST_Outer', { aFlags: [true, false] }, /^P\.aFlags: expected 3 elements/],
    ['ST_Outer', { aFlags: [true, false, 1] }, /^P\.aFlags\[3\]: expected a boolean/],
    [
      'ARRAY [1..2,0..2] OF INT',
      [
        [1, 2, 3],
        [4, 5],
      ],
      /^P\[2\]: expected 3 elements/,
    ],
    [
      'ARRAY [1..2,0..2] OF INT',
      [
        [1, 2, 3],
        [4, 5, 99999],
      ],
      /^P\[2,2\]: 99999 is outside INT/,
    ],
    ['ARRAY [1..2] OF INT', 'no', /expected an array/],
  ];
  for (const [type, value, pattern] of bad) {
    it(`${type} refuses ${String(value)}`, () =>
      assert.throws(() => roundTrip(type, value), mismatch(pattern)));
  }
});

describe('enum values that are no member', () => {
  reg.defineStruct('ST_Station', [
    { name: 'eMode', type: 'E_MachineMode' },
    { name: 'aModes', type: 'ARRAY [0..1, 1..2] OF E_MachineMode' },
  ]);
  const station = reg.resolve('ST_Station');

  it('are encoded when they fit the base type, each reported with its path', () => {
    const seen: Array<[string, number, string]> = [];
    const value = {
      eMode: 5,
      aModes: [
        [10, 11],
        ['eAuto', { name: 'eManual' }],
      ],
    };
    const bytes = encode(station, value, 'S', (path, v, type) => seen.push([path, v, type.name]));
    assert.deepEqual(decode(station, bytes, 0), {
      eMode: 5,
      aModes: [
        [10, 11],
        [10, -1],
      ],
    });
    assert.deepEqual(seen, [
      ['S.eMode', 5, 'E_MachineMode'],
      ['S.aModes[0,2]', 11, 'E_MachineMode'],
    ]);
  });

  it('outside the base type are refused and not reported', () => {
    const seen: unknown[] = [];
    assert.throws(
      () => encode(station, { eMode: 40000 }, 'S', (...args) => seen.push(args)),
      mismatch(/^S\.eMode: 40000 is outside the INT base of E_MachineMode/),
    );
    assert.deepEqual(seen, []);
  });
});

describe('partial struct writes', () => {
  it('encodeOver keeps members the value omits and does not touch the source', () => {
    const t = reg.resolve('ST_Outer');
    const current = encode(t, { pt: { x: 7, y: 1.5, sName: 'abc' }, aFlags: [true, true, false] }, 'P');
    const before = Buffer.from(current);
    const next = encodeOver(t, current, { pt: { y: 9 } }, 'P');
    assert.deepEqual(decode(t, next, 0), {
      pt: { x: 7, y: 9, sName: 'abc' },
      aFlags: [true, true, false],
    });
    assert.deepEqual(current, before);
  });
  it('a failing member leaves the source untouched', () => {
    const t = reg.resolve('ST_Outer');
    const current = encode(t, { pt: { x: 1 } }, 'P');
    const before = Buffer.from(current);
    assert.throws(() => encodeOver(t, current, { pt: { x: 2, y: 'bad' } }, 'P'), mismatch(/P\.pt\.y/));
    assert.deepEqual(current, before);
  });
  it('cp1252 bytes are stored as single bytes', () => {
    const t = reg.resolve('STRING(4)');
    assert.deepEqual([...encode(t, '€ÿ', 'P')], [0x80, 0xff, 0, 0, 0]);
  });
  it('STRING reads up to the NUL', () => {
    const t = reg.resolve('STRING(4)');
    assert.equal(decode(t, Buffer.from([0x41, 0x42, 0, 0x43, 0]), 0), 'AB');
  });
});
