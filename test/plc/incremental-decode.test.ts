import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalDecoder } from '../../src/plc/index.ts';
import { TypeRegistry, decode, encode } from '../../src/simulator/engine/index.ts';

const reg = new TypeRegistry();
reg.defineStruct('ST_Point', [
  { name: 'x', type: 'INT' },
  { name: 'sName', type: 'STRING(5)' },
  { name: 'aTags', type: 'ARRAY [0..1] OF STRING(3)' },
]);
const points = reg.resolve('ARRAY [1..4] OF ST_Point');
const grid = reg.resolve('ARRAY [1..2, 1..3] OF ST_Point');

const point = (x: number, sName = 'p', aTags = ['a', 'b']) => ({ x, sName, aTags });

describe('IncrementalDecoder', () => {
  it('decodes like decode(), keeping the objects of elements whose bytes did not change', () => {
    const decoder = new IncrementalDecoder();
    const first = [point(1), point(2), point(3), point(4)];
    const a = decoder.decode(points, encode(points, first, 'P')) as unknown[];
    assert.deepEqual(a, first);
    const second = [point(1), point(20, 'q'), point(3), point(4, 'p', ['a', 'c'])];
    const b = decoder.decode(points, encode(points, second, 'P')) as Array<Record<string, unknown>>;
    assert.deepEqual(b, second);
    assert.equal(b[0], a[0]);
    assert.equal(b[2], a[2]);
    assert.notEqual(b[1], a[1]);
    // Within a changed element, an unchanged member keeps its value object too.
    assert.notEqual(b[3], a[3]);
    assert.equal(b[3]?.sName, 'p');
    assert.deepEqual(b[3]?.aTags, ['a', 'c']);
  });

  it('compares against the previous reading, not the first', () => {
    const decoder = new IncrementalDecoder();
    decoder.decode(points, encode(points, [point(1), point(2), point(3), point(4)], 'P'));
    decoder.decode(points, encode(points, [point(9), point(2), point(3), point(4)], 'P'));
    const back = [point(1), point(2), point(3), point(4)];
    assert.deepEqual(decoder.decode(points, encode(points, back, 'P')), back);
  });

  it('equals a whole decode after any run of changes, wherever they fall', () => {
    const many = reg.resolve('ARRAY [0..99] OF ST_Point');
    const decoder = new IncrementalDecoder();
    const value = Array.from({ length: 100 }, (_, i) => point(i));
    for (let step = 0; step < 200; step++) {
      // Changes at both ends, in runs and scattered, including none and all.
      const count = step % 25 === 0 ? 100 : step % 7;
      for (let n = 0; n < count; n++)
        value[(step * 37 + n * (step % 3 === 0 ? 1 : 13)) % 100] = point(step + n);
      const data = encode(many, value, 'M');
      assert.deepEqual(decoder.decode(many, data), decode(many, data, 0), `step ${step}`);
    }
  });

  it('walks every dimension of a multi-dimensional array', () => {
    const decoder = new IncrementalDecoder();
    const rows = [
      [point(1), point(2), point(3)],
      [point(4), point(5), point(6)],
    ];
    const a = decoder.decode(grid, encode(grid, rows, 'G')) as unknown[][];
    const changed = [rows[0], [point(4), point(50), point(6)]];
    const b = decoder.decode(grid, encode(grid, changed, 'G')) as unknown[][];
    assert.deepEqual(b, changed);
    assert.equal(b[0], a[0]);
    assert.equal(b[1]?.[0], a[1]?.[0]);
    assert.notEqual(b[1]?.[1], a[1]?.[1]);
  });

  it('shares nothing with the old value once the type changes (a download)', () => {
    const decoder = new IncrementalDecoder();
    const value = [point(1), point(2), point(3), point(4)];
    const a = decoder.decode(points, encode(points, value, 'P')) as unknown[];
    const retyped = new TypeRegistry();
    retyped.defineStruct('ST_Point', [
      { name: 'x', type: 'INT' },
      { name: 'sName', type: 'STRING(5)' },
      { name: 'aTags', type: 'ARRAY [0..1] OF STRING(3)' },
    ]);
    const again = retyped.resolve('ARRAY [1..4] OF ST_Point');
    const b = decoder.decode(again, encode(again, value, 'P')) as unknown[];
    assert.deepEqual(b, decode(again, encode(again, value, 'P'), 0));
    assert.notEqual(b[0], a[0]);
  });
});
