// A bounded memory of token subjects already told about something, so a warning is logged once per `sub` and a
// flood of distinct subjects cannot grow memory: when full, it is emptied (and each subject may be logged again).

export class OncePerSubject {
  readonly #seen = new Set<string>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** True the first time a subject is seen (since the memory was last emptied). */
  first(sub: string): boolean {
    if (this.#seen.has(sub)) return false;
    if (this.#seen.size >= this.#capacity) this.#seen.clear();
    this.#seen.add(sub);
    return true;
  }

  get size(): number {
    return this.#seen.size;
  }
}
