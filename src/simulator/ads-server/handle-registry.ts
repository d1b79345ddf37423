// Variable handles (0xF003) kept per client AMS address (NetId:port), as a TwinCAT runtime keeps them:
// a client with a fixed address gets its handles back on its next TCP connection (command-line tools
// connect once per command), a router port takes its handles with it when it closes, and a program
// change releases every handle.

import type { HandleTarget } from './symbol-service.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { formatAmsAddress, type AmsAddress } from './protocol/net-id.ts';

/** The handles of one AMS address. */
export class HandleTable {
  readonly #targets = new Map<number, HandleTarget>();
  /** Handles a program change released: their use answers "symbol version invalid" rather than "not found". */
  #stale = new Set<number>();

  constructor(
    private readonly nextId: () => number,
    private readonly limit: number,
  ) {}

  get size(): number {
    return this.#targets.size;
  }

  get empty(): boolean {
    return this.#targets.size === 0 && this.#stale.size === 0;
  }

  create(target: HandleTarget): number {
    if (this.#targets.size >= this.limit) {
      throw new AdsError(AdsErrorCode.NoMemory, `No more than ${this.limit} handles per client`);
    }
    const handle = this.nextId();
    this.#targets.set(handle, target);
    return handle;
  }

  /** The target of a live handle: 1809 for one a program change released, 1808 for an unknown one. */
  get(handle: number): HandleTarget {
    const target = this.#targets.get(handle);
    if (target) return target;
    if (this.#stale.has(handle)) {
      throw new AdsError(AdsErrorCode.SymbolVersionInvalid, `Handle ${handle} predates a program change`);
    }
    throw new AdsError(AdsErrorCode.SymbolNotFound, `Handle ${handle} is not valid`);
  }

  /** Releasing a handle a program change already released succeeds: the client's bookkeeping is right. */
  release(handle: number): void {
    if (this.#targets.delete(handle) || this.#stale.delete(handle)) return;
    throw new AdsError(AdsErrorCode.SymbolNotFound, `Handle ${handle} is not valid`);
  }

  /** Program change: every handle is released; only the latest change's handles are remembered as stale. */
  invalidate(): void {
    this.#stale = new Set(this.#targets.keys());
    this.#targets.clear();
  }
}

export interface HandleRegistryOptions {
  nextId: () => number;
  maxPerOwner: number;
  /** AMS addresses holding handles at once; the least recently used one is dropped beyond it. */
  maxOwners: number;
}

export class HandleRegistry {
  readonly #owners = new Map<string, HandleTable>();

  constructor(private readonly options: HandleRegistryOptions) {}

  /** The handles of an address, or undefined when it holds none (nothing is allocated for a lookup). */
  find(address: AmsAddress): HandleTable | undefined {
    const key = formatAmsAddress(address);
    const table = this.#owners.get(key);
    if (table) this.#touch(key, table);
    return table;
  }

  /** The handles of an address, created on its first handle. */
  obtain(address: AmsAddress): HandleTable {
    const found = this.find(address);
    if (found) return found;
    const table = new HandleTable(this.options.nextId, this.options.maxPerOwner);
    this.#owners.set(formatAmsAddress(address), table);
    while (this.#owners.size > this.options.maxOwners) {
      const oldest = this.#owners.keys().next().value;
      if (oldest === undefined) break;
      this.#owners.delete(oldest);
    }
    return table;
  }

  /** A router port closed: its handles go with it. */
  drop(address: AmsAddress): void {
    this.#owners.delete(formatAmsAddress(address));
  }

  count(address: AmsAddress | undefined): number {
    return address ? (this.#owners.get(formatAmsAddress(address))?.size ?? 0) : 0;
  }

  invalidateAll(): void {
    for (const [key, table] of this.#owners) {
      table.invalidate();
      if (table.empty) this.#owners.delete(key);
    }
  }

  clear(): void {
    this.#owners.clear();
  }

  #touch(key: string, table: HandleTable): void {
    this.#owners.delete(key);
    this.#owners.set(key, table);
  }
}
