// Places for long-running tool calls (those that keep reading a PLC for a while, e.g. watch_variables): bounded
// per user (Mcp.MaxConcurrentToolsPerUser) and in all (Mcp.MaxConcurrentTools), so no token can keep the PLCs
// busy with calls it starts faster than they end.
import { AppError } from '../../errors.ts';

export interface ToolSlotLimits {
  readonly perUser: number;
  readonly total: number;
}

export class ToolSlots {
  readonly #limits: ToolSlotLimits;
  readonly #perUser = new Map<string, number>();
  #total = 0;

  constructor(limits: ToolSlotLimits) {
    this.#limits = limits;
  }

  /** Running calls: of one user, or in all. */
  running(sub?: string): number {
    return sub === undefined ? this.#total : (this.#perUser.get(sub) ?? 0);
  }

  /** Takes a place for `tool` or throws 429 CONCURRENCY_LIMIT; the returned function gives it back (once). */
  take(sub: string, tool: string): () => void {
    const own = this.running(sub);
    if (own >= this.#limits.perUser) {
      throw new AppError(
        'CONCURRENCY_LIMIT',
        `This user already runs ${own} long-running tool calls (Mcp.MaxConcurrentToolsPerUser is ` +
          `${this.#limits.perUser}); ${tool} can start when one of them ends.`,
      );
    }
    if (this.#total >= this.#limits.total) {
      throw new AppError(
        'CONCURRENCY_LIMIT',
        `The gateway runs as many long-running tool calls as it allows (Mcp.MaxConcurrentTools is ` +
          `${this.#limits.total}); ${tool} can start when one of them ends.`,
      );
    }
    this.#perUser.set(sub, own + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#perUser.get(sub) ?? 1) - 1;
      if (left === 0) this.#perUser.delete(sub);
      else this.#perUser.set(sub, left);
    };
  }
}
