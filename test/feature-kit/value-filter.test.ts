// The deadband and longest-interval rule shared by the streams, history recording and MQTT, at its edges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deadbandNumber, ValueFilter } from '../../src/feature-kit/value-filter.ts';

describe('ValueFilter', () => {
  it('passes the first value, then only numbers at least the deadband away from the last one marked', () => {
    const f = new ValueFilter({ deadband: 0.5, maxIntervalMs: 0 });
    assert.equal(f.passes('LREAL', 1), true);
    f.mark('LREAL', 1, 0);
    assert.equal(f.passes('LREAL', 1.4999), false);
    assert.equal(f.passes('LREAL', 1.5), true);
    assert.equal(f.passes('LREAL', 0.5), true);
    assert.equal(f.passes('LREAL', 0.5001), false);
  });

  it('without skipEqual every value passes without a deadband; with it, only a different one', () => {
    const streams = new ValueFilter({ deadband: 0, maxIntervalMs: 0 });
    const history = new ValueFilter({ deadband: 0, maxIntervalMs: 0, skipEqual: true });
    for (const f of [streams, history]) f.mark('STRING', 'a', 0);
    assert.equal(streams.passes('STRING', 'a'), true);
    assert.equal(history.passes('STRING', 'a'), false);
    assert.equal(history.passes('STRING', 'b'), true);
  });

  it('is due the longest interval after the last mark, not a millisecond before; never before a first mark', () => {
    const f = new ValueFilter({ deadband: 0, maxIntervalMs: 1000 });
    assert.equal(f.due(1e9), false);
    assert.equal(f.dueIn(0), Infinity);
    f.mark('DINT', 1, 5000);
    assert.equal(f.due(5999), false);
    assert.equal(f.dueIn(5999), 1);
    assert.equal(f.due(6000), true);
    assert.equal(f.dueIn(6500), 0);
    f.reset();
    assert.equal(f.due(7000), false);
    assert.equal(f.passes('DINT', 1), true);
  });

  it('compares 64-bit integers (decimal text) as numbers, and nothing else that is text', () => {
    assert.equal(deadbandNumber('LINT', '-42'), -42);
    assert.equal(deadbandNumber('ULINT', '18446744073709551615'), Number('18446744073709551615'));
    assert.equal(deadbandNumber('STRING(10)', '42'), undefined);
    assert.equal(deadbandNumber('BOOL', true), undefined);
    assert.equal(deadbandNumber('ARRAY [1..2] OF INT', [1, 2]), undefined);
    assert.equal(deadbandNumber('REAL', 1.5), 1.5);
  });
});
