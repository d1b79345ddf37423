import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { ProgramBuilder } from '../../src/simulator/engine/index.ts';

function program() {
  const b = new ProgramBuilder();
  b.struct('ST_HmiAxis', [
    { name: 'sId', type: 'STRING(15)' },
    { name: 'rPosition', type: 'LREAL', comment: 'Actual position' },
    { name: 'bEnabled', type: 'BOOL' },
  ]);
  b.struct('ST_Machine', [
    { name: 'nState', type: 'INT' },
    { name: 'stAxis', type: 'ST_HmiAxis' },
  ]);
  b.symbol('GVL_HMI.nFirst', 'BYTE', { comment: 'first' });
  b.symbol('GVL_HMI.aAxes', 'ARRAY [1..16] OF ST_HmiAxis');
  b.symbol('GVL_HMI.stMachine', 'ST_Machine');
  b.symbol('MAIN.aGrid', 'ARRAY [1..2, 0..3] OF INT');
  b.symbol('MAIN.aNested', 'ARRAY [0..1] OF ARRAY [5..6] OF BYTE');
  b.symbol('Plain', 'DINT');
  return b.build();
}

describe('path resolution', () => {
  const p = program();
  const axes = p.symbol('GVL_HMI.aAxes')!.offset;
  const grid = p.symbol('MAIN.aGrid')!.offset;
  const cases: Array<[string, string, number, string]> = [
    ['GVL_HMI.aAxes[3].rPosition', 'GVL_HMI.aAxes[3].rPosition', axes + 2 * 32 + 16, 'LREAL'],
    ['gvl_hmi.AAXES[ 1 ].SID', 'GVL_HMI.aAxes[1].sId', axes, 'STRING(15)'],
    ['GVL_HMI.aAxes[16]', 'GVL_HMI.aAxes[16]', axes + 15 * 32, 'ST_HmiAxis'],
    ['GVL_HMI.aAxes', 'GVL_HMI.aAxes', axes, 'ARRAY [1..16] OF ST_HmiAxis'],
    ['MAIN.aGrid[1,0]', 'MAIN.aGrid[1,0]', grid, 'INT'],
    ['main.agrid[2, 3]', 'MAIN.aGrid[2,3]', grid + 7 * 2, 'INT'],
    ['MAIN.aNested[1][6]', 'MAIN.aNested[1][6]', p.symbol('MAIN.aNested')!.offset + 3, 'BYTE'],
    [
      'GVL_HMI.stMachine.stAxis.bEnabled',
      'GVL_HMI.stMachine.stAxis.bEnabled',
      p.symbol('GVL_HMI.stMachine')!.offset + 8 + 24,
      'BOOL',
    ],
    ['plain', 'Plain', p.symbol('Plain')!.offset, 'DINT'],
  ];
  for (const [input, canonical, offset, typeName] of cases) {
    it(input, () => {
      const r = p.resolve(input);
      assert.equal(r.path, canonical);
      assert.equal(r.offset, offset);
      assert.equal(r.type.name, typeName);
    });
  }

  const missing = [
    'GVL_HMI.aAxes[0]',
    'GVL_HMI.aAxes[17]',
    'MAIN.aGrid[3,0]',
    'MAIN.aGrid[1,4]',
    'MAIN.aGrid[1]',
    'MAIN.aNested[1,5]',
    'GVL_HMI.aAxes[1].nope',
    'GVL_HMI.nFirst.x',
    'GVL_HMI',
    'GVL_HMI.nFirst[1]',
    'Nope',
    '',
    'a..b',
    'GVL_HMI.aAxes[x]',
  ];
  for (const input of missing) {
    it(`SYMBOL_NOT_FOUND: '${input}'`, () =>
      assert.throws(
        () => p.resolve(input),
        (e: unknown) => e instanceof AppError && e.code === 'SYMBOL_NOT_FOUND',
      ));
  }

  it('carries member comments', () => {
    assert.equal(p.resolve('GVL_HMI.aAxes[2].rPosition').comment, 'Actual position');
    assert.equal(p.resolve('GVL_HMI.nFirst').comment, 'first');
  });

  it('symbols are allocated in order and aligned', () => {
    const offsets = p.symbols.map((s) => [s.name, s.offset]);
    assert.deepEqual(offsets, [
      ['GVL_HMI.nFirst', 0],
      ['GVL_HMI.aAxes', 8],
      ['GVL_HMI.stMachine', 520],
      ['MAIN.aGrid', 560],
      ['MAIN.aNested', 576],
      ['Plain', 580],
    ]);
    assert.equal(p.size, 584);
  });
});

describe('symbol tree', () => {
  const p = program();
  it('top-level symbols with members and elements as children', () => {
    const tree = p.symbolTree();
    assert.deepEqual(
      tree.map((n) => n.instancePath),
      ['GVL_HMI.nFirst', 'GVL_HMI.aAxes', 'GVL_HMI.stMachine', 'MAIN.aGrid', 'MAIN.aNested', 'Plain'],
    );
    const first = tree[0]!;
    assert.deepEqual(first, {
      instancePath: 'GVL_HMI.nFirst',
      typeName: 'BYTE',
      size: 1,
      comment: 'first',
      children: null,
    });
    const axes = tree[1]!;
    assert.equal(axes.children!.length, 16);
    assert.equal(axes.children![2]!.instancePath, 'GVL_HMI.aAxes[3]');
    assert.deepEqual(
      axes.children![2]!.children!.map((c) => [c.instancePath, c.typeName, c.size, c.comment]),
      [
        ['GVL_HMI.aAxes[3].sId', 'STRING(15)', 16, ''],
        ['GVL_HMI.aAxes[3].rPosition', 'LREAL', 8, 'Actual position'],
        ['GVL_HMI.aAxes[3].bEnabled', 'BOOL', 1, ''],
      ],
    );
    assert.deepEqual(
      tree[3]!.children!.map((c) => c.instancePath),
      [
        'MAIN.aGrid[1,0]',
        'MAIN.aGrid[1,1]',
        'MAIN.aGrid[1,2]',
        'MAIN.aGrid[1,3]',
        'MAIN.aGrid[2,0]',
        'MAIN.aGrid[2,1]',
        'MAIN.aGrid[2,2]',
        'MAIN.aGrid[2,3]',
      ],
    );
    assert.deepEqual(
      tree[4]!.children![1]!.children!.map((c) => c.instancePath),
      ['MAIN.aNested[1][5]', 'MAIN.aNested[1][6]'],
    );
  });
  it('one node by path, canonical spelling', () => {
    const n = p.symbolNode('gvl_hmi.stmachine.STAXIS');
    assert.equal(n.instancePath, 'GVL_HMI.stMachine.stAxis');
    assert.equal(n.children!.length, 3);
  });
  // How fast is bench:symbol-search's business; this checks a program of that size resolves correctly.
  it('100000 symbols: one tree node each, resolved case-insensitively', () => {
    const b = new ProgramBuilder();
    for (let i = 0; i < 100_000; i++) b.symbol(`GVL.n${i}`, i % 2 ? 'INT' : 'LREAL');
    const big = b.build();
    const tree = big.symbolTree();
    const r = big.resolve('gvl.n99999');
    assert.equal(tree.length, 100_000);
    assert.equal(r.path, 'GVL.n99999');
    assert.equal(r.type.name, 'INT');
  });
});
