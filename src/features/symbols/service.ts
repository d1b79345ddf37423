// Symbol browsing: the tree, search and flat listings and single-symbol lookup, answered from a per-target
// index that is rebuilt when the connection changes and revalidated in the background once it is old.
import { AppError } from '../../errors.ts';
import type { Clock } from '../../guards/rate-limit/limiter.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import type { PlcTarget, SymbolNode } from '../../targets/target.ts';
import {
  buildSymbolIndex,
  findSymbol,
  searchSymbols,
  type FlatSymbol,
  type SymbolIndex,
} from './symbol-index.ts';

export interface SymbolQuery {
  /** Case-insensitive substring of the instance path; absent or empty lists everything. */
  readonly search?: string | undefined;
  /** true: every matching node without children; false: the outermost matches with their subtrees. */
  readonly flat: boolean;
}

export interface SymbolBrowserOptions {
  readonly now: Clock;
  /**
   * How long an index is served without asking the PLC again. A program download that keeps the connection
   * is picked up this long after it happened; a reconnect drops the index at once.
   */
  readonly maxAgeMs?: number;
}

interface CacheEntry {
  index: SymbolIndex;
  builtAt: number;
  refreshing: boolean;
}

const defaultSymbolMaxAgeMs = 60_000;

/** The app's one SymbolBrowser (its index is the cache of every PLC's tree), as the symbol routes publish it. */
export const symbolBrowserKey = new ServiceKey<SymbolBrowser>('symbols');

/** Answers symbol queries for any target; one instance per app. */
export class SymbolBrowser {
  readonly #now: Clock;
  readonly #maxAgeMs: number;
  readonly #entries = new Map<PlcTarget, CacheEntry>();
  /** First loads in flight, shared by concurrent requests so a cold cache fetches the tree once. */
  readonly #loading = new Map<PlcTarget, Promise<SymbolIndex>>();
  readonly #unsubscribe = new Map<PlcTarget, () => void>();
  /** Bumped on every connection change: a fetch that began under an older generation is not stored. */
  readonly #generation = new Map<PlcTarget, number>();

  constructor(options: SymbolBrowserOptions) {
    this.#now = options.now;
    this.#maxAgeMs = options.maxAgeMs ?? defaultSymbolMaxAgeMs;
  }

  /** Top-level symbols with children, or the matches of a search (see SymbolQuery). */
  async list(target: PlcTarget, query: SymbolQuery): Promise<SymbolNode[] | FlatSymbol[]> {
    const index = await this.index(target);
    const text = query.search ?? '';
    if (query.flat) return text === '' ? index.flat : searchSymbols(index, text, true);
    return text === '' ? index.roots : searchSymbols(index, text, false);
  }

  /** One symbol, member or array element with its children; 404 SYMBOL_NOT_FOUND. */
  async get(target: PlcTarget, path: string): Promise<SymbolNode> {
    const node = findSymbol(await this.index(target), path);
    if (!node) throw new AppError('SYMBOL_NOT_FOUND', `Symbol '${path}' not found.`);
    return node;
  }

  /** The target's index: cached, loaded once when cold, refreshed in the background when old. */
  index(target: PlcTarget): Promise<SymbolIndex> {
    this.#watch(target);
    const entry = this.#entries.get(target);
    if (!entry) return this.#load(target);
    if (!entry.refreshing && this.#now() - entry.builtAt >= this.#maxAgeMs) this.#refresh(target, entry);
    return Promise.resolve(entry.index);
  }

  /** Stops listening to the targets' connection state. */
  close(): void {
    for (const off of this.#unsubscribe.values()) off();
    this.#unsubscribe.clear();
    this.#entries.clear();
    this.#loading.clear();
    this.#generation.clear();
  }

  #load(target: PlcTarget): Promise<SymbolIndex> {
    const pending = this.#loading.get(target);
    if (pending) return pending;
    const promise = this.#fetch(target).finally(() => {
      if (this.#loading.get(target) === promise) this.#loading.delete(target);
    });
    this.#loading.set(target, promise);
    return promise;
  }

  #refresh(target: PlcTarget, entry: CacheEntry): void {
    entry.refreshing = true;
    // Failure keeps the old index and waits another period: a PLC that cannot browse is not asked per request.
    this.#fetch(target).catch(() => {
      entry.refreshing = false;
      entry.builtAt = this.#now();
    });
  }

  async #fetch(target: PlcTarget): Promise<SymbolIndex> {
    const started = this.#now();
    const generation = this.#generation.get(target) ?? 0;
    const index = buildSymbolIndex(await target.symbols());
    // A connection change while fetching dropped the entry on purpose; what this fetch read may be stale.
    if ((this.#generation.get(target) ?? 0) === generation) {
      this.#entries.set(target, { index, builtAt: started, refreshing: false });
    }
    return index;
  }

  #watch(target: PlcTarget): void {
    if (this.#unsubscribe.has(target)) return;
    const off = target.onConnectionState(() => {
      this.#generation.set(target, (this.#generation.get(target) ?? 0) + 1);
      this.#entries.delete(target);
      this.#loading.delete(target);
    });
    this.#unsubscribe.set(target, off);
  }
}
