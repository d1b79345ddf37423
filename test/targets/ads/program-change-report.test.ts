// One program-change report lists at most ProgramChanges.MaxSymbolsPerChange affected symbols (sorted by path)
// and counts every one, by what happened to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramChangeReport } from '../../../src/targets/ads/program-change-report.ts';
import type { SymbolAddress } from '../../../src/targets/ads/symbol-table.ts';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';

const builder = new ProgramBuilder();
builder.symbol('MAIN.x', 'DINT');
const dint = builder.build().resolve('MAIN.x').type;

function address(path: string, offset: number): SymbolAddress {
  return { path, indexGroup: 0x4040, indexOffset: offset, size: 4, type: dint, comment: '' };
}

function report(max: number, vanished: number): ReturnType<ProgramChangeReport['finish']> {
  const r = new ProgramChangeReport('download', { old: 3, new: 4 }, max);
  for (let i = vanished; i > 0; i--) r.vanished(address(`MAIN.n${i}`, i * 4));
  r.moved(address('MAIN.a', 0), address('MAIN.a', 400));
  return r.finish(new Date(0));
}

describe('program-change report bound', () => {
  it('at MaxSymbolsPerChange every symbol is listed; one more is only counted', () => {
    const exact = report(3, 2);
    assert.deepEqual(
      exact.affected.map((a) => [a.symbol, a.impact]),
      [
        ['MAIN.a', 'moved'],
        ['MAIN.n1', 'vanished'],
        ['MAIN.n2', 'vanished'],
      ],
    );
    assert.deepEqual([exact.affectedCount, exact.counts], [3, { vanished: 2, typeChanged: 0, moved: 1 }]);
    const over = report(3, 3);
    assert.equal(over.affected.length, 3);
    assert.deepEqual([over.affectedCount, over.counts], [4, { vanished: 3, typeChanged: 0, moved: 1 }]);
    assert.deepEqual([over.oldSymbolVersion, over.newSymbolVersion, over.kind], [3, 4, 'download']);
  });
});
