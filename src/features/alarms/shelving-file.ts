// PlcAlarms.ShelvingStateFile: what is shelved and out of service on each PLC, kept in one JSON file so a gateway
// without a shared Redis keeps it across restarts. Read once at start-up (a file that is not one stops it, naming
// the setting), written whole and atomically after a change, at most once per ShelvingWriteIntervalMs: a burst of
// changes (an operator's script) is one write, not one per change.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../../config/schema.ts';
import type { DeadlineClock } from '../../http/streams/token-deadlines.ts';
import type { BookFile } from './shelving.ts';

/** How often the file may be written, and where a write made later that fails is reported. */
export interface ShelvingFileWrites {
  readonly clock: DeadlineClock;
  /** PlcAlarms.ShelvingWriteIntervalMs. */
  readonly intervalMs: number;
  readonly onError: (err: Error) => void;
}

const setting = 'PlcAlarms.ShelvingStateFile';

const Record_ = Type.Object({ by: Type.String(), at: Type.String(), reason: Type.String() });
const PlcState = Type.Object({
  shelved: Type.Record(Type.String(), Type.Composite([Record_, Type.Object({ until: Type.String() })])),
  outOfService: Type.Record(Type.String(), Record_),
});
const FileState = Type.Record(Type.String(), PlcState);
type PlcState = Static<typeof PlcState>;

export class ShelvingFile {
  readonly #file: string;
  readonly #state: Record<string, PlcState>;
  readonly #writes: ShelvingFileWrites | undefined;
  #lastWrite = -Infinity;
  /** Cancels the write scheduled for the end of the interval. */
  #pending: (() => void) | undefined;

  /**
   * Reads the file; none yet is an empty state. Throws ConfigError when it is not a shelving state. Without
   * `writes`, every change is written at once.
   */
  constructor(file: string, writes?: ShelvingFileWrites) {
    this.#file = file;
    this.#writes = writes;
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new ConfigError([`${setting}: cannot read ${file}: ${(err as Error).message}`]);
    }
    if (text === undefined) {
      this.#state = {};
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ConfigError([`${setting}: ${file} is not JSON: ${(err as Error).message}`]);
    }
    if (!Value.Check(FileState, value)) {
      throw new ConfigError([
        `${setting}: ${file} does not hold a shelving state (fix it, or delete it to start with nothing shelved)`,
      ]);
    }
    this.#state = value;
  }

  book(plcId: string): BookFile {
    const own = this.#state[plcId];
    return {
      saved: {
        shelved: new Map(Object.entries(own?.shelved ?? {})),
        outOfService: new Map(Object.entries(own?.outOfService ?? {})),
      },
      save: (book) => {
        this.#state[plcId] = {
          shelved: Object.fromEntries(book.shelved),
          outOfService: Object.fromEntries(book.outOfService),
        };
        this.#request();
      },
    };
  }

  /** Writes a change still waiting for its interval to end (at shutdown). */
  flush(): void {
    if (this.#pending === undefined) return;
    this.#pending();
    this.#pending = undefined;
    this.#write();
  }

  /**
   * A change's write: at once when the last was an interval ago (a failure reaches the caller), else once at
   * the interval's end with every change made meanwhile.
   */
  #request(): void {
    const writes = this.#writes;
    if (writes === undefined) return this.#write();
    if (this.#pending !== undefined) return;
    const due = this.#lastWrite + writes.intervalMs;
    if (writes.clock.now() >= due) return this.#write();
    this.#pending = writes.clock.at(due, () => {
      this.#pending = undefined;
      try {
        this.#write();
      } catch (err) {
        writes.onError(err as Error);
      }
    });
  }

  #write(): void {
    this.#lastWrite = this.#writes?.clock.now() ?? 0;
    mkdirSync(dirname(this.#file), { recursive: true });
    const temp = `${this.#file}.tmp`;
    writeFileSync(temp, JSON.stringify(this.#state, null, 2) + '\n');
    renameSync(temp, this.#file);
  }
}
