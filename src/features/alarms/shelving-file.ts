// PlcAlarms.ShelvingStateFile: what is shelved and out of service on each PLC, kept in one JSON file so a gateway
// without a shared Redis keeps it across restarts. Read once at start-up (a file that is not one stops it, naming
// the setting), written whole and atomically after every change (changes come at the pace of people).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../../config/schema.ts';
import type { BookFile } from './shelving.ts';

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

  /** Reads the file; none yet is an empty state. Throws ConfigError when it is not a shelving state. */
  constructor(file: string) {
    this.#file = file;
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
        this.#write();
      },
    };
  }

  #write(): void {
    mkdirSync(dirname(this.#file), { recursive: true });
    const temp = `${this.#file}.tmp`;
    writeFileSync(temp, JSON.stringify(this.#state, null, 2) + '\n');
    renameSync(temp, this.#file);
  }
}
