import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { TypeRegistry, type MemberDecl } from '../../src/simulator/engine/index.ts';

function layout(members: MemberDecl[], setup?: (r: TypeRegistry) => void) {
  const r = new TypeRegistry();
  setup?.(r);
  const t = r.defineStruct('ST_Test', members);
  return { offsets: t.members.map((m) => m.offset), size: t.size };
}

const m = (name: string, type: string): MemberDecl => ({ name, type });

describe('struct layout (TwinCAT x64)', () => {
  const cases: Array<[string, MemberDecl[], number[], number]> = [
    ['BOOL then LREAL pads to 8', [m('a', 'BOOL'), m('b', 'LREAL')], [0, 8], 16],
    ['BYTE INT BYTE', [m('a', 'BYTE'), m('b', 'INT'), m('c', 'BYTE')], [0, 2, 4], 6],
    ['STRING is byte aligned', [m('b', 'BOOL'), m('s', 'STRING(3)')], [0, 1], 5],
    ['WSTRING is word aligned', [m('b', 'BOOL'), m('w', 'WSTRING(3)')], [0, 2], 10],
    ['array aligned like its element', [m('b', 'BOOL'), m('a', 'ARRAY [0..2] OF DINT')], [0, 4], 16],
    ['LINT and TIME', [m('t', 'TIME'), m('l', 'LINT'), m('d', 'DT')], [0, 8, 16], 24],
    ['only bytes stays unpadded', [m('a', 'BOOL'), m('b', 'BOOL'), m('c', 'USINT')], [0, 1, 2], 3],
    ['DATE_AND_TIME alias', [m('x', 'SINT'), m('d', 'date_and_time')], [0, 4], 8],
    [
      'ST_HmiAxis',
      [
        m('sId', 'STRING(15)'),
        m('sComponent', 'STRING(31)'),
        m('sUnit', 'STRING(7)'),
        m('rPosition', 'LREAL'),
        m('rTargetPos', 'LREAL'),
        m('rVelocity', 'LREAL'),
        m('rMin', 'LREAL'),
        m('rMax', 'LREAL'),
        m('rVmax', 'LREAL'),
        m('rAmax', 'LREAL'),
        m('bEnabled', 'BOOL'),
        m('bHomed', 'BOOL'),
        m('bMoving', 'BOOL'),
      ],
      [0, 16, 48, 56, 64, 72, 80, 88, 96, 104, 112, 113, 114],
      120,
    ],
  ];
  for (const [name, members, offsets, size] of cases) {
    it(name, () => assert.deepEqual(layout(members), { offsets, size }));
  }

  it('nested struct aligned to its widest member', () => {
    const got = layout([m('b', 'BOOL'), m('inner', 'ST_Inner')], (r) =>
      r.defineStruct('ST_Inner', [m('x', 'BYTE'), m('y', 'DINT')]),
    );
    assert.deepEqual(got, { offsets: [0, 4], size: 12 });
  });

  it('enum member aligned to its base type', () => {
    const got = layout([m('b', 'BOOL'), m('e', 'E_Big')], (r) =>
      r.defineEnum('E_Big', [{ name: 'A', value: 1 }], 'DINT'),
    );
    assert.deepEqual(got, { offsets: [0, 4], size: 8 });
  });

  it('arrays of structs', () => {
    const r = new TypeRegistry();
    r.defineStruct('ST_P', [m('b', 'BOOL'), m('r', 'LREAL')]);
    const a = r.resolve('array[1..16] of st_p');
    assert.equal(a.name, 'ARRAY [1..16] OF ST_P');
    assert.equal(a.size, 256);
    const s = r.defineStruct('ST_Holder', [m('x', 'BYTE'), m('a', 'ARRAY [1..2] OF ST_P')]);
    assert.deepEqual(
      s.members.map((x) => x.offset),
      [0, 8],
    );
    assert.equal(s.size, 40);
  });

  it('rejects duplicate members and unknown member types', () => {
    assert.throws(() => layout([m('a', 'INT'), m('A', 'INT')]), /duplicate member/);
    assert.throws(
      () => layout([m('a', 'ST_Nope')]),
      (e: unknown) => e instanceof AppError && e.code === 'TYPE_NOT_FOUND',
    );
  });
});

describe('type names', () => {
  const r = new TypeRegistry();
  r.defineStruct('ST_HmiAxis', [m('x', 'BOOL')]);
  const cases: Array<[string, string, number]> = [
    ['string', 'STRING(80)', 81],
    ['STRING(15)', 'STRING(15)', 16],
    ['String[7]', 'STRING(7)', 8],
    ['wstring(10)', 'WSTRING(10)', 22],
    ['WSTRING', 'WSTRING(80)', 162],
    ['Time_Of_Day', 'TOD', 4],
    ['lword', 'LWORD', 8],
    ['ARRAY [1..2, 0..3] OF int', 'ARRAY [1..2,0..3] OF INT', 16],
    ['ARRAY[-2..2] OF LREAL', 'ARRAY [-2..2] OF LREAL', 40],
    ['ARRAY [1..16] OF st_hmiaxis', 'ARRAY [1..16] OF ST_HmiAxis', 16],
    ['ARRAY [0..1] OF ARRAY [0..2] OF BYTE', 'ARRAY [0..1] OF ARRAY [0..2] OF BYTE', 6],
    ['ARRAY [0..1] OF STRING', 'ARRAY [0..1] OF STRING(80)', 162],
  ];
  for (const [text, name, size] of cases) {
    it(`${text} -> ${name}`, () => {
      const t = r.resolve(text);
      assert.equal(t.name, name);
      assert.equal(t.size, size);
    });
  }
  for (const bad of ['ST_Missing', 'ARRAY [3..1] OF INT', 'ARRAY [a..b] OF INT', 'INT INT', 'STRING(0)']) {
    it(`refuses ${bad}`, () => {
      assert.throws(() => r.resolve(bad), AppError);
    });
  }
  it('lists array types it resolved', () => {
    assert.ok(r.arrayTypes().some((t) => t.name === 'ARRAY [1..16] OF ST_HmiAxis'));
  });
  it('enums validate values against the base type', () => {
    const reg = new TypeRegistry();
    assert.throws(() => reg.defineEnum('E_X', [{ name: 'A', value: 300 }], 'SINT'), /outside SINT/);
    assert.throws(() => reg.defineEnum('E_Y', [{ name: 'A', value: 1 }], 'LREAL'), /not an integer type/);
    assert.throws(() => reg.defineEnum('INT', [{ name: 'A', value: 1 }]), /built-in/);
    const e = reg.defineEnum('E_Z', [{ name: 'A', value: 1 }]);
    assert.equal(e.base, 'INT');
    assert.equal(e.size, 2);
  });
});
