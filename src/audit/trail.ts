// The audit trail every state-changing operation reports to: bounds what a record may carry, keeps it in the
// store and writes it to the log as an `audit` line. Features call it through the HTTP hooks or directly.
import { errorCatalog } from '../errors.ts';
import type { AuditAction, AuditEntry, AuditError, AuditRecord, AuditRing, AuditStore } from './store.ts';

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
  /**
   * The gateway refused the request without acting on it (answered 4xx or 501): kept apart from the changes.
   * Absent (callers other than the HTTP edge): a refusal when the error code's status in the catalog is one and
   * the record carries no values (values mean the operation reached the PLC, e.g. a batch with failed items).
   */
  refused?: boolean;
}

/** The configured spelling of a plcId (plcIds match ignoring case); an unknown one as it was given. */
export type PlcIdSpelling = (plcId: string) => string;

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
  readonly #spell: PlcIdSpelling;

  constructor(
    store: AuditStore,
    log: AuditLog,
    now: () => number = Date.now,
    spell: PlcIdSpelling = (plcId) => plcId,
  ) {
    this.#store = store;
    this.#log = log;
    this.#now = now;
    this.#spell = spell;
  }

  get store(): AuditStore {
    return this.#store;
  }

  /** Records one operation. Never throws: a failing store is logged, and the operation's answer stands. */
  async record(event: AuditEvent): Promise<AuditRecord | undefined> {
    const entry: AuditEntry = {
      at: new Date(this.#now()).toISOString(),
      sub: cut(event.sub),
      // As configured, so `?plcId=` finds a record however the caller typed the PLC.
      plcId: event.plcId === null ? null : cut(this.#spell(event.plcId)),
      action: event.action,
      target: cut(event.target),
      result: event.error ? 'error' : 'ok',
      ...(event.error ? { error: { code: event.error.code, message: cut(event.error.message) } } : {}),
      ...('oldValue' in event ? { oldValue: bounded(event.oldValue) } : {}),
      ...('newValue' in event ? { newValue: bounded(event.newValue) } : {}),
    };
    try {
      const record = await this.#store.append(entry, ringOf(event));
      this.#log.info({ audit: record }, 'audit');
      return record;
    } catch (err) {
      this.#log.error({ err, audit: entry }, 'audit record could not be stored');
      return undefined;
    }
  }
}

/** Refusals (4xx, 501: nothing was done) go to their own ring, so they never push a change out. */
export function isRefusalStatus(status: number): boolean {
  return (status >= 400 && status < 500) || status === 501;
}

function ringOf(event: AuditEvent): AuditRing {
  if (event.refused !== undefined) return event.refused ? 'refusals' : 'changes';
  if ('oldValue' in event || 'newValue' in event) return 'changes';
  const code = event.error?.code;
  const status =
    code !== undefined && Object.hasOwn(errorCatalog, code)
      ? errorCatalog[code as keyof typeof errorCatalog].status
      : 200;
  return isRefusalStatus(status) ? 'refusals' : 'changes';
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
