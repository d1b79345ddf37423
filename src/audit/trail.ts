// The audit trail every state-changing operation reports to: bounds what a record may carry, keeps it in the
// store and writes it to the log as an `audit` line. Features call it through the HTTP hooks or directly.
import type { AuditAction, AuditEntry, AuditError, AuditRecord, AuditStore } from './store.ts';

/** What a caller reports; the trail adds `seq` and `at`. */
export interface AuditEvent {
  sub: string;
  plcId: string | null;
  action: AuditAction;
  target: string;
  /** Absent: the operation succeeded. */
  error?: AuditError;
  oldValue?: unknown;
  newValue?: unknown;
}

/** The slice of a pino logger the trail writes to. */
export interface AuditLog {
  info(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Longest target and error message kept; longer ones are cut with an ellipsis. */
export const maxTextLength = 512;
/** Largest JSON a kept value may have; a larger value is replaced by a note of its size. */
export const maxValueJson = 4096;

export class AuditTrail {
  readonly #store: AuditStore;
  readonly #log: AuditLog;
  readonly #now: () => number;

  constructor(store: AuditStore, log: AuditLog, now: () => number = Date.now) {
    this.#store = store;
    this.#log = log;
    this.#now = now;
  }

  get store(): AuditStore {
    return this.#store;
  }

  /** Records one operation. Never throws: a failing store is logged, and the operation's answer stands. */
  async record(event: AuditEvent): Promise<AuditRecord | undefined> {
    const entry: AuditEntry = {
      at: new Date(this.#now()).toISOString(),
      sub: cut(event.sub),
      plcId: event.plcId === null ? null : cut(event.plcId),
      action: event.action,
      target: cut(event.target),
      result: event.error ? 'error' : 'ok',
      ...(event.error ? { error: { code: event.error.code, message: cut(event.error.message) } } : {}),
      ...('oldValue' in event ? { oldValue: bounded(event.oldValue) } : {}),
      ...('newValue' in event ? { newValue: bounded(event.newValue) } : {}),
    };
    try {
      const record = await this.#store.append(entry);
      this.#log.info({ audit: record }, 'audit');
      return record;
    } catch (err) {
      this.#log.error({ err, audit: entry }, 'audit record could not be stored');
      return undefined;
    }
  }
}

function cut(text: string): string {
  return text.length <= maxTextLength ? text : `${text.slice(0, maxTextLength - 1)}…`;
}

/** The value itself when its JSON is small; otherwise `{ omitted: <JSON length> }` so a record stays small. */
function bounded(value: unknown): unknown {
  if (value === undefined) return null;
  const json = JSON.stringify(value);
  if (json === undefined) return null;
  return json.length <= maxValueJson ? (JSON.parse(json) as unknown) : { omitted: json.length };
}
