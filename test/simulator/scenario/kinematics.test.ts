// Axis kinematics: trapezoidal moves land exactly on target, within vmax and amax, without overshoot.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brakingVelocity, stepAxis } from '../../../src/simulator/scenario/kinematics.ts';

interface Move {
  from: number;
  to: number;
  vmax: number;
  amax: number;
  dt: number;
}

/** Runs a move from rest until it stops on target; returns the trace summary. */
function run(m: Move, limits: [number, number] = [-1e6, 1e6]) {
  const out = { position: m.from, velocity: 0 };
  let maxSpeed = 0;
  let maxDv = 0;
  let overshoot = false;
  let cycles = 0;
  let arrivedAt = -1;
  for (; cycles < 100_000; cycles++) {
    const v0 = out.velocity;
    stepAxis(out.position, out.velocity, m.to, limits[0], limits[1], m.vmax, m.amax, true, m.dt, out);
    maxSpeed = Math.max(maxSpeed, Math.abs(out.velocity));
    maxDv = Math.max(maxDv, Math.abs(out.velocity - v0));
    if ((m.to - m.from) * (out.position - m.to) > 0) overshoot = true;
    if (arrivedAt < 0 && out.position === m.to) arrivedAt = cycles + 1;
    if (out.position === m.to && out.velocity === 0) break;
  }
  return { ...out, cycles: cycles + 1, maxSpeed, maxDv, overshoot, arrivedAt };
}

describe('stepAxis', () => {
  const moves: Move[] = [
    { from: 0, to: 100, vmax: 50, amax: 100, dt: 0.1 },
    { from: 0, to: 100, vmax: 50, amax: 100, dt: 0.01 },
    { from: 10, to: -3.3, vmax: 1, amax: 0.7, dt: 0.05 },
    { from: 0, to: 1e-9, vmax: 5, amax: 5, dt: 0.1 },
    { from: 5, to: 1234.5678, vmax: 33, amax: 7, dt: 0.013 },
    {
      from: -97.03461716571513,
      to: 44.01421912161453,
      vmax: 32.42684507557485,
      amax: 3.1896584626367694,
      dt: 0.1,
    },
    { from: 0, to: 100, vmax: 1000, amax: 1, dt: 0.1 },
  ];
  for (const m of moves) {
    test(`${m.from} -> ${m.to} (vmax ${m.vmax}, amax ${m.amax}, dt ${m.dt})`, () => {
      const r = run(m);
      assert.equal(r.position, m.to, 'lands exactly on the target');
      assert.equal(r.velocity, 0, 'and stops');
      assert.equal(r.overshoot, false, 'never passes the target');
      assert.ok(r.maxSpeed <= m.vmax, `speed ${r.maxSpeed} within vmax`);
      assert.ok(r.maxDv <= m.amax * m.dt * (1 + 1e-9), `velocity change ${r.maxDv} within amax*dt`);
      assert.ok(r.cycles - r.arrivedAt <= 1, 'stops the scan after landing');
    });
  }

  test('the move takes about as long as the continuous trapezoid', () => {
    const r = run({ from: 0, to: 100, vmax: 50, amax: 100, dt: 0.01 });
    // 0.5 s ramps + 1.5 s cruise = 2.5 s continuous; the discrete one may take a few scans more.
    assert.ok(r.cycles >= 250 && r.cycles <= 255, String(r.cycles));
  });

  test('a random sweep never overshoots and always stops on target', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 300; i++) {
      const m = {
        from: rnd() * 200 - 100,
        to: rnd() * 200 - 100,
        vmax: rnd() * 50 + 0.01,
        amax: rnd() * 100 + 0.01,
        dt: [0.01, 0.1, 1][i % 3] ?? 0.1,
      };
      const r = run(m);
      assert.ok(r.position === m.to && r.velocity === 0 && !r.overshoot, JSON.stringify(m));
      assert.ok(r.maxDv <= m.amax * m.dt * (1 + 1e-9), JSON.stringify(m));
    }
  });

  const holds: Array<[string, Parameters<typeof stepAxis>]> = [
    ['disabled', [5, 3, 50, 0, 100, 10, 10, false, 0.1, { position: 0, velocity: 0 }]],
    ['vmax 0', [5, 0, 50, 0, 100, 0, 10, true, 0.1, { position: 0, velocity: 0 }]],
    ['amax 0', [5, 0, 50, 0, 100, 10, 0, true, 0.1, { position: 0, velocity: 0 }]],
    ['NaN target', [5, 0, NaN, 0, 100, 10, 10, true, 0.1, { position: 0, velocity: 0 }]],
    ['at target at rest', [50, 0, 50, 0, 100, 10, 10, true, 0.1, { position: 0, velocity: 0 }]],
  ];
  for (const [name, args] of holds) {
    test(`holds still: ${name}`, () => {
      const out = args[9];
      stepAxis(...args);
      assert.deepEqual(out, { position: args[0], velocity: 0 });
    });
  }

  // Limits a client can write (finite ones through the variables API, any through ADS) never make the
  // axis NaN: [position, velocity, target, min, max, vmax, amax] -> finite after 100 scans, or held.
  const extremes: Array<[string, [number, number, number, number, number, number, number], number]> = [
    ['a range wider than the largest double', [-1.7e308, 0, 1.7e308, -1.7e308, 1.7e308, 100, 100], NaN],
    ['an amax so small amax*dt underflows', [0, 0, 50, 0, 100, 10, 5e-324], 0],
    ['an infinite amax', [0, 0, 50, 0, 100, 10, Infinity], 50],
    ['infinite vmax and amax', [0, 0, 50, 0, 100, Infinity, Infinity], 50],
    ['an infinite target with infinite limits', [0, 0, Infinity, -Infinity, Infinity, 10, 10], 0],
    ['a NaN position', [NaN, 0, 50, 0, 100, 10, 10], NaN],
  ];
  for (const [name, [p, v, target, min, max, vmax, amax], settles] of extremes) {
    test(`never goes NaN: ${name}`, () => {
      const out = { position: p, velocity: v };
      for (let i = 0; i < 100; i++) {
        stepAxis(out.position, out.velocity, target, min, max, vmax, amax, true, 0.1, out);
        assert.ok(!Number.isNaN(out.velocity), `velocity NaN in scan ${i + 1}`);
        if (!Number.isNaN(p)) assert.ok(Number.isFinite(out.position), `position ${out.position}`);
      }
      if (!Number.isNaN(settles)) assert.deepEqual(out, { position: settles, velocity: 0 });
    });
  }

  test('a target beyond the limits stops at the limit', () => {
    const r = run({ from: 0, to: 500, vmax: 50, amax: 100, dt: 0.1 }, [0, 100]);
    assert.equal(r.position, 100);
    assert.equal(r.velocity, 0);
  });

  test('a lower vmax clamps a faster axis at once', () => {
    const out = { position: 0, velocity: 0 };
    stepAxis(0, 40, 100, 0, 100, 10, 1, true, 0.1, out);
    assert.equal(out.velocity, 10);
  });

  test('a target moved behind a fast axis: it brakes, overshoots as a real axis would, and returns', () => {
    const out = { position: 50, velocity: 50 };
    let maxPos = 50;
    for (let i = 0; i < 200; i++) {
      stepAxis(out.position, out.velocity, 50, 0, 100, 50, 100, true, 0.1, out);
      maxPos = Math.max(maxPos, out.position);
    }
    assert.ok(maxPos > 50);
    assert.deepEqual(out, { position: 50, velocity: 0 });
  });

  const braking: Array<[number, number]> = [
    [0, 0],
    [0.5, 0.5],
    [1, 1],
    [3, 2],
    [6, 3],
    [4.5, 2.5],
  ];
  for (const [units, v] of braking) {
    test(`brakingVelocity(${units}) = ${v}`, () => assert.equal(brakingVelocity(units), v));
  }
});
