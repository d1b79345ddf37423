// What the lease holder writes to Redis for a PLC's alarm journal (TypeBox), and the checks a replica makes before
// it takes any of it: a journal entry (`{at, kind, reading}` as the append script stores and publishes it) and the
// stored snapshot of outstanding readings. Redis is shared, not trusted: a value of another shape is rejected.
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { JournalEntry } from '../journal.ts';
import type { AlarmReading } from '../reading.ts';
import { PlcClock, TransitionKind } from '../schemas.ts';

/** An AlarmReading as JSON.stringify writes it (an absent time is left out). */
const StoredReading = Type.Object(
  {
    key: Type.String(),
    equipmentId: Type.String(),
    errorCode: Type.Integer(),
    severity: Type.Integer(),
    severityLabel: Type.String(),
    isActive: Type.Boolean(),
    needsAck: Type.Boolean(),
    isAcked: Type.Boolean(),
    slotIndex: Type.Integer({ minimum: 0 }),
    time: Type.Optional(
      Type.Object(
        { lastOccurred: Type.String(), plcTimestamp: Type.String(), plcClock: PlcClock },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A journal entry's JSON (field `e` of a stream entry, the last frame of a pushed one); `at` as toISOString writes it. */
export const StoredEntry = Type.Object(
  {
    at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' }),
    kind: TransitionKind,
    reading: StoredReading,
  },
  { additionalProperties: false },
);

/** The state hash's `snapshot`: the outstanding readings as of `snapseq`. */
export const StoredSnapshot = Type.Array(StoredReading);

const entryCheck = TypeCompiler.Compile(StoredEntry);
const snapshotCheck = TypeCompiler.Compile(StoredSnapshot);

/** Why a value read from Redis was rejected. */
export interface Rejection {
  readonly rejected: string;
}

/** The first failed rule, as `<path> <message>`. */
function firstError(check: TypeCheck<TSchema>, value: unknown): string {
  const error = check.Errors(value).First();
  return error === undefined ? 'invalid' : `${error.path || '/'} ${error.message}`;
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** The entry numbered `seq` from its JSON and acknowledging user, or why it is not one the holder writes. */
export function checkedEntry(seq: number, json: string, user: string | undefined): JournalEntry | Rejection {
  const body = parsed(json);
  if (body === undefined) return { rejected: 'not JSON' };
  if (!entryCheck.Check(body)) return { rejected: firstError(entryCheck, body) };
  // Checked against the schema above, which is AlarmReading's JSON.
  const { at, kind, reading } = body as { at: string; kind: JournalEntry['kind']; reading: AlarmReading };
  return user === undefined ? { seq, at, kind, reading } : { seq, at, kind, reading, user };
}

/** The stored snapshot's readings, or why it is not one the holder writes. */
export function checkedSnapshot(json: string): AlarmReading[] | Rejection {
  const value = parsed(json);
  if (value === undefined) return { rejected: 'not JSON' };
  if (!snapshotCheck.Check(value)) return { rejected: firstError(snapshotCheck, value) };
  return value as AlarmReading[];
}

/** How much of a rejected value a log line quotes. */
const quotedChars = 200;

/** The start of a rejected value for a log line: a forged one may be large. */
export function quoted(text: string): string {
  return text.length <= quotedChars ? text : `${text.slice(0, quotedChars)}… (${text.length} chars)`;
}
