// The registry of configured PLC targets, keyed by plcId; owns their start and close.
import type { PlcTarget } from './target.ts';

export interface TargetRegistry {
  /** The target whose plcId matches ignoring case, as the spec's service keys its targets. */
  get(plcId: string): PlcTarget | undefined;
  /** Every target, sorted by plcId. */
  list(): readonly PlcTarget[];
  startAll(): Promise<void>;
  closeAll(): Promise<void>;
}

export function createRegistry(targets: readonly PlcTarget[]): TargetRegistry {
  const sorted = [...targets].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const byId = new Map(sorted.map((t) => [t.id.toLowerCase(), t] as const));
  return {
    get: (plcId) => byId.get(plcId.toLowerCase()),
    list: () => sorted,
    startAll: async () => {
      await Promise.all(sorted.map((t) => t.start()));
    },
    closeAll: async () => {
      await Promise.allSettled(sorted.map((t) => t.close()));
    },
  };
}
