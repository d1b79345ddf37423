// The Sparkplug bdSeq: one up per MQTT session (0-255, wrapping), kept in a small JSON file beside the settings so
// a restarted gateway never reuses the number of its previous session's NDEATH.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class SessionCounter {
  readonly #file: string;
  #last: number | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  /** The last bdSeq handed out (from the file at first), or undefined when there was none. */
  last(): number | undefined {
    if (this.#last !== undefined) return this.#last;
    try {
      const parsed = JSON.parse(readFileSync(this.#file, 'utf8')) as { bdSeq?: unknown };
      const n = parsed.bdSeq;
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 255) this.#last = n;
    } catch {
      // No file yet (first start) or an unreadable one: counting starts at 0.
    }
    return this.#last;
  }

  /** The next bdSeq, written to the file (atomically) before it is used. */
  next(): number {
    const last = this.last();
    const n = last === undefined ? 0 : (last + 1) % 256;
    mkdirSync(dirname(this.#file), { recursive: true });
    const temp = `${this.#file}.tmp`;
    writeFileSync(temp, JSON.stringify({ bdSeq: n }) + '\n');
    renameSync(temp, this.#file);
    this.#last = n;
    return n;
  }
}
