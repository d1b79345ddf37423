// Pure axis kinematics: one scan of trapezoidal point-to-point motion under vmax/amax, no allocation.

/** Result slot for stepAxis, reused across calls so the scan loop allocates nothing. */
export interface AxisMotion {
  position: number;
  velocity: number;
}

/**
 * Fastest velocity (in units of amax*dt) from which an axis `units` away (in units of amax*dt^2) can still
 * stop exactly on the goal when each scan lowers the velocity by at most amax*dt. From velocity x the
 * shortest remaining path is x + (x-1) + (x-2) + ... (down to its fractional part), so the answer is the
 * largest x with that sum <= units: with x = m + f, the sum is m(m+1)/2 + (m+1)f.
 */
export function brakingVelocity(units: number): number {
  let m = Math.floor((Math.sqrt(8 * units + 1) - 1) / 2);
  if (((m + 1) * (m + 2)) / 2 <= units) m += 1;
  else if ((m * (m + 1)) / 2 > units) m -= 1;
  return m + (units - (m * (m + 1)) / 2) / (m + 1);
}

/**
 * Advances one axis by `dt` seconds toward `target` (clamped to [min, max]).
 *
 * Trapezoidal point-to-point motion: the velocity changes by at most amax*dt per scan, never exceeds
 * vmax (a lower vmax clamps a faster axis at once) and follows the discrete braking curve, so a move
 * started at rest lands exactly on the target without overshoot and stops (velocity 0) the scan after.
 * Only a target moved behind a fast axis overshoots, as a real axis would, and then comes back. A disabled
 * axis, or one whose vmax, amax, target or position is not usable, holds still with velocity 0. The
 * position never leaves [min, max] and never becomes NaN, whatever finite or infinite limits are written. Semi-implicit Euler: velocity first, then position with the new velocity.
 */
export function stepAxis(
  position: number,
  velocity: number,
  target: number,
  min: number,
  max: number,
  vmax: number,
  amax: number,
  enabled: boolean,
  dt: number,
  out: AxisMotion,
): void {
  const adt = amax * dt;
  if (!enabled || !(vmax > 0) || !(adt > 0) || !(dt > 0) || !(min <= max) || !Number.isFinite(position)) {
    out.position = position;
    out.velocity = 0;
    return;
  }
  const goal = target < min ? min : target > max ? max : target;
  if (!Number.isFinite(goal)) {
    out.position = position;
    out.velocity = 0;
    return;
  }
  const d = goal - position;
  if (d === 0 && (velocity === 0 || (velocity < 0 ? -velocity : velocity) <= amax * dt * (1 + 1e-9))) {
    out.position = position;
    out.velocity = 0;
    return;
  }
  // Distances too large for the braking curve (or limits at infinity) come out NaN: then vmax rules.
  let allowed = brakingVelocity((d < 0 ? -d : d) / (adt * dt)) * adt;
  if (!(allowed <= vmax)) allowed = vmax;
  let v = d >= 0 ? allowed : -allowed;
  if (v > velocity + adt) v = velocity + adt;
  else if (v < velocity - adt) v = velocity - adt;
  if (v > vmax) v = vmax;
  else if (v < -vmax) v = -vmax;
  let p = position + v * dt;
  // On the plan the step ends at or before the goal, so a crossing is rounding: land exactly. Off the plan
  // (braking too late for a moved target) the axis really passes the goal unless only by rounding.
  const passed = d > 0 ? p - goal : goal - p;
  if (passed >= -1e-12 * (goal < 0 ? 1 - goal : 1 + goal)) {
    const onPlan = (v < 0 ? -v : v) <= allowed + 1e-9 * adt;
    if (onPlan || passed <= 1e-9 * (goal < 0 ? 1 - goal : 1 + goal)) p = goal;
  }
  if (p > max) {
    p = max;
    v = 0;
  } else if (p < min) {
    p = min;
    v = 0;
  }
  out.position = p;
  out.velocity = v;
}
