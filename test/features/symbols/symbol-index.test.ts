// The symbol index: pre-order layout, exact lookup and substring search (outermost matches as a tree, every
// match flat), as tables over a small hand-made tree.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSymbolIndex, findSymbol, searchSymbols } from '../../../src/features/symbols/symbol-index.ts';
import type { SymbolNode } from '../../../src/targets/target.ts';

function node(instancePath: string, children: SymbolNode[] | null = null): SymbolNode {
  return { instancePath, typeName: children ? 'ST_X' : 'INT', size: 2, comment: '', children };
}

const tree = [
  node('MAIN.nSpeed'),
  node('GVL.stAxis', [
    node('GVL.stAxis.rPos'),
    node('GVL.stAxis.aPos', [node('GVL.stAxis.aPos[1]'), node('GVL.stAxis.aPos[2]')]),
  ]),
  node('GVL.aAxes', [
    node('GVL.aAxes[1]', [node('GVL.aAxes[1].rPos')]),
    node('GVL.aAxes[2]', [node('GVL.aAxes[2].rPos')]),
  ]),
];
const index = buildSymbolIndex(tree);
const paths = (nodes: ReadonlyArray<{ instancePath: string }>) => nodes.map((n) => n.instancePath);

describe('symbol index', () => {
  test('lists every node in pre-order and knows each subtree', () => {
    assert.deepEqual(paths(index.nodes), [
      'MAIN.nSpeed',
      'GVL.stAxis',
      'GVL.stAxis.rPos',
      'GVL.stAxis.aPos',
      'GVL.stAxis.aPos[1]',
      'GVL.stAxis.aPos[2]',
      'GVL.aAxes',
      'GVL.aAxes[1]',
      'GVL.aAxes[1].rPos',
      'GVL.aAxes[2]',
      'GVL.aAxes[2].rPos',
    ]);
    assert.deepEqual([...index.subtreeEnd], [1, 6, 3, 6, 5, 6, 11, 9, 9, 11, 11]);
    assert.equal('children' in index.flat[1]!, false);
  });

  const lookups: Array<[string, string | undefined]> = [
    ['GVL.stAxis', 'GVL.stAxis'],
    ['gvl.STAXIS.rpos', 'GVL.stAxis.rPos'],
    ['GVL.aAxes[2].rPos', 'GVL.aAxes[2].rPos'],
    ['GVL.aAxes[ 2 ].rPos', 'GVL.aAxes[2].rPos'],
    ['MAIN.nSpeed', 'MAIN.nSpeed'],
    ['GVL.aAxes[3]', undefined],
    ['GVL.stAxis.r', undefined],
    ['Axis', undefined],
    ['', undefined],
    ['GVL.stAxis\nGVL.aAxes', undefined],
  ];
  for (const [path, expected] of lookups) {
    test(`find ${JSON.stringify(path)} -> ${String(expected)}`, () => {
      assert.equal(findSymbol(index, path)?.instancePath, expected);
    });
  }

  const searches: Array<[string, string[], string[]]> = [
    // text, tree (outermost matches), flat (every match)
    [
      'rpos',
      ['GVL.stAxis.rPos', 'GVL.aAxes[1].rPos', 'GVL.aAxes[2].rPos'],
      ['GVL.stAxis.rPos', 'GVL.aAxes[1].rPos', 'GVL.aAxes[2].rPos'],
    ],
    [
      'axes',
      ['GVL.aAxes'],
      ['GVL.aAxes', 'GVL.aAxes[1]', 'GVL.aAxes[1].rPos', 'GVL.aAxes[2]', 'GVL.aAxes[2].rPos'],
    ],
    [
      '[2]',
      ['GVL.stAxis.aPos[2]', 'GVL.aAxes[2]'],
      ['GVL.stAxis.aPos[2]', 'GVL.aAxes[2]', 'GVL.aAxes[2].rPos'],
    ],
    ['SPEED', ['MAIN.nSpeed'], ['MAIN.nSpeed']],
    ['gvl.', ['GVL.stAxis', 'GVL.aAxes'], paths(index.nodes).filter((p) => p.startsWith('GVL.'))],
    ['nothing', [], []],
    ['s\nG', [], []],
  ];
  for (const [text, asTree, asFlat] of searches) {
    test(`search ${JSON.stringify(text)}`, () => {
      assert.deepEqual(paths(searchSymbols(index, text, false)), asTree);
      assert.deepEqual(paths(searchSymbols(index, text, true)), asFlat);
      for (const n of searchSymbols(index, text, true)) assert.equal('children' in n, false);
    });
  }

  test('a tree match carries its whole subtree', () => {
    const [axes] = searchSymbols(index, 'aAxes', false);
    assert.equal(axes, tree[2]);
  });

  test('an empty tree', () => {
    const empty = buildSymbolIndex([]);
    assert.deepEqual(searchSymbols(empty, 'x', true), []);
    assert.equal(findSymbol(empty, 'x'), undefined);
  });
});
