// PLC lifecycle: start (Run), stop (Stop) and reset through the port, answering the ADS state read back.
import type { AdsState, PlcTarget } from '../../targets/target.ts';

export const lifecycleCommands = {
  start: 'Run',
  stop: 'Stop',
  reset: 'Reset',
} as const satisfies Record<string, 'Run' | 'Stop' | 'Reset'>;

export type LifecycleCommand = keyof typeof lifecycleCommands;

export interface LifecycleChange {
  /** The state before, when it could be read (for the audit trail); null otherwise. */
  before: AdsState | null;
  /** The state read back after the command. */
  adsState: AdsState;
}

/** Sends the command; an ADS refusal surfaces as the driver's ADS_ERROR (502). */
export async function runLifecycle(target: PlcTarget, command: LifecycleCommand): Promise<LifecycleChange> {
  const before = await target.deviceState().then(
    (s) => s.state,
    () => null,
  );
  const adsState = await target.setAdsState(lifecycleCommands[command]);
  return { before, adsState };
}
