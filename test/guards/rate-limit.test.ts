// Rate limits: fixed and sliding windows at their edges with an injected clock, bounded memory, named route
// limits per partition, and the global per-user limit through HTTP with Retry-After.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.ts';
import { createFixedWindowLimiter } from '../../src/guards/rate-limit/fixed-window.ts';
import { enforce } from '../../src/guards/rate-limit/limiter.ts';
import { createRateLimits, type RouteLimitName } from '../../src/guards/rate-limit/rate-limits.ts';
import { createSlidingWindowLimiter } from '../../src/guards/rate-limit/sliding-window.ts';
import { buildTestApp, manualClock } from '../helpers/app.ts';
import { testConfig } from '../helpers/config.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

function allowedRun(take: () => { allowed: boolean }, times: number): boolean[] {
  return Array.from({ length: times }, () => take().allowed);
}

describe('fixed window', () => {
  test('limit N: N pass, N+1 refused with Retry-After until the window ends', () => {
    const clock = manualClock();
    const limiter = createFixedWindowLimiter({ limit: 3, windowMs: 1000, now: clock.now });
    assert.deepEqual(
      allowedRun(() => limiter.take('u'), 4),
      [true, true, true, false],
    );
    clock.advance(400);
    assert.deepEqual(limiter.take('u'), { allowed: false, retryAfterSeconds: 1 });
    clock.advance(599);
    assert.equal(limiter.take('u').allowed, false);
    clock.advance(1);
    assert.deepEqual(limiter.take('u'), { allowed: true, remaining: 2 });
  });

  test('Retry-After rounds up to whole seconds', () => {
    const clock = manualClock();
    const limiter = createFixedWindowLimiter({ limit: 1, windowMs: 60_000, now: clock.now });
    limiter.take('u');
    clock.advance(500);
    assert.deepEqual(limiter.take('u'), { allowed: false, retryAfterSeconds: 60 });
    clock.advance(58_600);
    assert.deepEqual(limiter.take('u'), { allowed: false, retryAfterSeconds: 1 });
  });

  test('keys are independent', () => {
    const limiter = createFixedWindowLimiter({ limit: 1, windowMs: 1000, now: manualClock().now });
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('b').allowed, true);
    assert.equal(limiter.take('a').allowed, false);
  });

  test('idle keys are evicted and the key count stays under maxKeys', () => {
    const clock = manualClock();
    const limiter = createFixedWindowLimiter({ limit: 1, windowMs: 1000, now: clock.now, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    assert.ok(limiter.size() <= 100, `size ${limiter.size()}`);
    clock.advance(1000);
    limiter.take('fresh');
    assert.equal(limiter.size(), 1);
  });
});

describe('sliding window', () => {
  test('1 per 5 s: refused until 5 s after the accepted request, not at a window boundary', () => {
    const clock = manualClock();
    const limiter = createSlidingWindowLimiter({ limit: 1, windowMs: 5000, now: clock.now });
    assert.equal(limiter.take('line1').allowed, true);
    clock.advance(4000);
    assert.deepEqual(limiter.take('line1'), { allowed: false, retryAfterSeconds: 1 });
    clock.advance(999);
    assert.equal(limiter.take('line1').allowed, false);
    clock.advance(1);
    assert.equal(limiter.take('line1').allowed, true);
  });

  test('limit 2 slides: each slot frees 5 s after its own request', () => {
    const clock = manualClock();
    const limiter = createSlidingWindowLimiter({ limit: 2, windowMs: 5000, now: clock.now });
    limiter.take('p');
    clock.advance(3000);
    limiter.take('p');
    assert.deepEqual(limiter.take('p'), { allowed: false, retryAfterSeconds: 2 });
    clock.advance(2000);
    assert.equal(limiter.take('p').allowed, true);
    assert.deepEqual(limiter.take('p'), { allowed: false, retryAfterSeconds: 3 });
  });

  test('bounded memory', () => {
    const clock = manualClock();
    const limiter = createSlidingWindowLimiter({ limit: 1, windowMs: 5000, now: clock.now, maxKeys: 10 });
    for (let i = 0; i < 100; i++) limiter.take(`k${i}`);
    assert.ok(limiter.size() <= 10);
    clock.advance(5000);
    limiter.take('x');
    assert.equal(limiter.size(), 1);
  });
});

describe('named route limits', () => {
  const settings = testConfig().settings.RateLimiting;

  function spend(name: RouteLimitName, subject: { user: string; plcId?: string }, times: number): number {
    const limits = createRateLimits(settings, manualClock().now);
    let ok = 0;
    for (let i = 0; i < times; i++) {
      try {
        limits.route(name, subject);
        ok += 1;
      } catch (err) {
        assert.ok(err instanceof AppError && err.code === 'RATE_LIMITED');
      }
    }
    return ok;
  }

  test('defaults at their edge', () => {
    assert.equal(spend('SymbolBrowsing', { user: 'u' }, 11), 10);
    assert.equal(spend('AlarmReads', { user: 'u', plcId: 'line1' }, 51), 50);
    assert.equal(spend('RpcInvocations', { user: 'u', plcId: 'line1' }, 11), 10);
    assert.equal(spend('NotificationConnections', { user: 'u' }, 6), 5);
    assert.equal(spend('Lifecycle', { user: 'u', plcId: 'line1' }, 2), 1);
  });

  test('partitions: per user per PLC, per user, per PLC', () => {
    const clock = manualClock();
    const limits = createRateLimits(
      { ...settings, AlarmReads: 1, SymbolBrowsing: 1, Lifecycle: 1 },
      clock.now,
    );
    const refused = (fn: () => void) =>
      assert.throws(fn, (e: unknown) => e instanceof AppError && e.status === 429);
    limits.route('AlarmReads', { user: 'a', plcId: 'line1' });
    limits.route('AlarmReads', { user: 'a', plcId: 'line2' });
    limits.route('AlarmReads', { user: 'b', plcId: 'line1' });
    refused(() => limits.route('AlarmReads', { user: 'a', plcId: 'line1' }));
    limits.route('SymbolBrowsing', { user: 'a', plcId: 'line1' });
    refused(() => limits.route('SymbolBrowsing', { user: 'a', plcId: 'line2' }));
    limits.route('Lifecycle', { user: 'a', plcId: 'line1' });
    refused(() => limits.route('Lifecycle', { user: 'b', plcId: 'line1' }));
    limits.route('Lifecycle', { user: 'b', plcId: 'line2' });
    clock.advance(5000);
    limits.route('Lifecycle', { user: 'b', plcId: 'line1' });
  });

  test('Enabled false switches every limit off', () => {
    const off = createRateLimits({ ...settings, Enabled: false, GlobalPerUser: 1, Lifecycle: 1 });
    assert.equal(off.enabled, false);
    for (let i = 0; i < 5; i++) {
      assert.doesNotThrow(() => off.global('u'));
      assert.doesNotThrow(() => off.route('Lifecycle', { user: 'u', plcId: 'p' }));
    }
    // The same settings enabled refuse the second request of each: the loop above would have thrown.
    const on = createRateLimits(
      { ...settings, Enabled: true, GlobalPerUser: 1, Lifecycle: 1 },
      manualClock().now,
    );
    on.global('u');
    assert.throws(
      () => on.global('u'),
      (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED',
    );
    on.route('Lifecycle', { user: 'u', plcId: 'p' });
    assert.throws(
      () => on.route('Lifecycle', { user: 'u', plcId: 'p' }),
      (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED',
    );
  });

  test('enforce raises RATE_LIMITED with Retry-After', () => {
    const limiter = createFixedWindowLimiter({ limit: 1, windowMs: 60_000, now: manualClock().now });
    enforce(limiter, 'k', 'Test');
    assert.throws(
      () => enforce(limiter, 'k', 'Test'),
      (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED' && e.headers['Retry-After'] === '60',
    );
  });
});

describe('global per-user limit over HTTP', () => {
  test('limit N: request N passes, N+1 is 429 with Retry-After; other users and the next window pass', async () => {
    const clock = manualClock();
    const app = await buildTestApp({ settings: { RateLimiting: { GlobalPerUser: 3 } }, now: clock.now });
    try {
      const alice = bearer(await mintToken({ sub: 'alice' }));
      const bob = bearer(await mintToken({ sub: 'bob' }));
      for (let i = 0; i < 3; i++)
        assert.equal((await app.inject({ url: '/api/plcs', headers: alice })).statusCode, 200);
      clock.advance(300);
      const refused = await app.inject({ url: '/api/plcs', headers: alice });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.json().data, null);
      assert.equal(refused.json().error.code, 'RATE_LIMITED');
      assert.equal((await app.inject({ url: '/api/plcs', headers: bob })).statusCode, 200);
      clock.advance(700);
      assert.equal((await app.inject({ url: '/api/plcs', headers: alice })).statusCode, 200);
      // Anonymous routes are not per-user and are not limited.
      for (let i = 0; i < 5; i++) assert.equal((await app.inject({ url: '/health/live' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
