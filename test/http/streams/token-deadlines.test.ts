// The token deadline mechanism on its own: the real timer clock never runs early by its own clock, and key
// withdrawal ends only the watches of withdrawn keys, once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deadlineTickMs, timerClock, TokenDeadlines } from '../../../src/http/streams/token-deadlines.ts';
import { manualDeadlineClock } from '../../helpers/app.ts';
import { Signal } from '../../helpers/signal.ts';

describe('timerClock', () => {
  it('runs at the instant of its clock, checking again when a timer fires before it', async () => {
    let t = 1_000;
    const clock = timerClock(() => t);
    const signal = new Signal();
    let checks = 0;
    let ran = false;
    const probe = () => {
      checks += 1;
      signal.notify();
      return t;
    };
    const watched = timerClock(probe);
    watched.at(1_005, () => {
      ran = true;
      signal.notify();
    });
    // The timers fire after ~5 ms of real time, but the clock has not moved: nothing runs yet.
    await signal.until(
      () => checks >= 3,
      10_000,
      () => 'timer checks',
    );
    assert.equal(ran, false);
    t = 1_005;
    await signal.until(
      () => ran,
      10_000,
      () => 'the callback',
    );
    // A cancelled one never runs.
    let cancelledRan = false;
    const cancel = clock.at(t + 1, () => void (cancelledRan = true));
    cancel();
    t += 10;
    let later = false;
    clock.at(t, () => {
      later = true;
      signal.notify();
    });
    await signal.until(
      () => later,
      10_000,
      () => 'an instant already passed runs at once',
    );
    assert.equal(cancelledRan, false);
  });
  it('sets timers of one period only, however many streams with whatever tokens come and go', () => {
    const realTimeout = globalThis.setTimeout;
    const realInterval = globalThis.setInterval;
    const periods = new Set<number | undefined>();
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      periods.add(ms);
      return realTimeout(fn, ms);
    }) as typeof setTimeout;
    globalThis.setInterval = (fn: () => void, ms?: number) => {
      periods.add(ms);
      return realInterval(fn, ms);
    };
    try {
      const t = 1_000_000;
      const clock = timerClock(() => t);
      // A stream each, opened with tokens running out at different instants hours ahead, and closed again.
      for (let i = 0; i < 100; i++) clock.at(t + 3_600_000 + i * 7, () => undefined)();
      const cancels = Array.from({ length: 100 }, (_, i) =>
        clock.at(t + 7_200_000 - i * 13, () => undefined),
      );
      for (const cancel of cancels) cancel();
      // Node keeps one timer list per period: one period is one list, whatever the streams did.
      assert.deepEqual([...periods], [deadlineTickMs]);
    } finally {
      globalThis.setTimeout = realTimeout;
      globalThis.setInterval = realInterval;
    }
  });
});

describe('TokenDeadlines', () => {
  it('ends a watch once: at its expiry, or when its key leaves the set; renew moves the expiry', () => {
    const clock = manualDeadlineClock(0);
    const deadlines = new TokenDeadlines(clock);
    const ended: string[] = [];
    const a = deadlines.watch({ expiresAt: 100, key: 'k1' }, (r) => ended.push(`a ${r}`));
    deadlines.watch({ expiresAt: 100, key: 'k2' }, (r) => ended.push(`b ${r}`));
    deadlines.watch({ expiresAt: 100 }, (r) => ended.push(`c ${r}`));
    deadlines.keysChanged(new Set(['k2']));
    assert.deepEqual(ended, ['a revoked']);
    a.renew({ expiresAt: 500, key: 'k2' });
    clock.advance(99);
    assert.deepEqual(ended, ['a revoked']);
    clock.advance(1);
    assert.deepEqual(ended, ['a revoked', 'b expired', 'c expired']);
    assert.equal(deadlines.size, 0);
    assert.equal(clock.pending, 0);
  });

  it('renew moves the end; cancel stops the watch', () => {
    const clock = manualDeadlineClock(0);
    const deadlines = new TokenDeadlines(clock);
    const ended: string[] = [];
    const w = deadlines.watch({ expiresAt: 100 }, (r) => ended.push(r));
    w.renew({ expiresAt: 300, key: 'k9' });
    assert.equal(w.endsAt, 300);
    clock.advance(299);
    assert.equal(ended.length, 0);
    clock.advance(1);
    assert.deepEqual(ended, ['expired']);
    const x = deadlines.watch({ expiresAt: 400, key: 'k9' }, (r) => ended.push(r));
    x.cancel();
    deadlines.keysChanged(new Set());
    clock.advance(1000);
    assert.deepEqual(ended, ['expired']);
  });
});
