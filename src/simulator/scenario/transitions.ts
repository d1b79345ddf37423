// The simulation state machine as a pure decision table (spec section 3 plus the design's settled points).

export type SimulationStateName = 'Stopped' | 'Running' | 'Paused' | 'Faulted';
export type SimulationOp = 'step' | 'run' | 'pause' | 'reset';

export type Decision =
  | { kind: 'conflict'; message: string }
  /** Nothing to do; the state stays. */
  | { kind: 'noop' }
  /** Run cycles inline; the state stays (Stopped or Paused). */
  | { kind: 'step' }
  | { kind: 'start' }
  | { kind: 'pause' }
  | { kind: 'reset' };

/**
 * What `op` does in `state`. Faulted refuses every driving operation but reset; step refuses while
 * Running; run while Running and pause while not Running are no-ops.
 */
export function decide(state: SimulationStateName, op: SimulationOp): Decision {
  if (op === 'reset') return { kind: 'reset' };
  if (state === 'Faulted') {
    return { kind: 'conflict', message: `The simulation is Faulted; reset it first (${op} refused).` };
  }
  switch (op) {
    case 'step':
      return state === 'Running'
        ? { kind: 'conflict', message: 'The simulation is Running; pause it first, then step.' }
        : { kind: 'step' };
    case 'run':
      return state === 'Running' ? { kind: 'noop' } : { kind: 'start' };
    case 'pause':
      return state === 'Running' ? { kind: 'pause' } : { kind: 'noop' };
  }
}
