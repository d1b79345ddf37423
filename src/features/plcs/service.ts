// PLC listing and status: summaries of the configured targets the caller may see, and one target's ADS state.
import type { AdsState, ConnectionState, PlcTarget, TargetMode } from '../../targets/target.ts';

export interface PlcSummary {
  plcId: string;
  displayName: string;
  isConnected: boolean;
  state: ConnectionState;
  mode: TargetMode;
}

export interface PlcStatus extends PlcSummary {
  /** Present only when connected and the read succeeded. */
  adsState?: AdsState;
  /** Why the target is not connected, while it is not. */
  lastError?: { code: string; message: string; since: string };
}

function summarize(target: PlcTarget): PlcSummary {
  const state = target.connectionState();
  return {
    plcId: target.id,
    displayName: target.displayName,
    isConnected: state === 'Connected',
    state,
    mode: target.mode,
  };
}

/** Summaries of the targets the caller may see, sorted by plcId. */
export function listPlcs(targets: readonly PlcTarget[], canAccess: (plcId: string) => boolean): PlcSummary[] {
  return targets
    .filter((t) => canAccess(t.id))
    .map(summarize)
    .sort((a, b) => (a.plcId < b.plcId ? -1 : a.plcId > b.plcId ? 1 : 0));
}

/**
 * The summary plus the ADS state read from the PLC. A status request must answer even when the PLC does not,
 * so a failed read leaves `adsState` out and reports it through `onReadError`.
 */
export async function plcStatus(target: PlcTarget, onReadError: (err: unknown) => void): Promise<PlcStatus> {
  const summary = summarize(target);
  if (!summary.isConnected) {
    const failure = target.lastError();
    if (!failure) return summary;
    const { code, message, since } = failure;
    return { ...summary, lastError: { code, message, since: since.toISOString() } };
  }
  try {
    const { state } = await target.deviceState();
    return { ...summary, adsState: state };
  } catch (err) {
    onReadError(err);
    return summary;
  }
}
