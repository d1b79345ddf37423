// Shelving and out of service shared by replicas: per PLC a Redis hash of what is shelved (`s:<key>`) and out of
// service (`o:<key>`), a counter numbering the changes, and a capped stream journaling them. Each change is one
// script that also publishes it, so every replica's copy (and its stream clients) learns of it. Every replica
// times the shelves it knows of and asks Redis to end one whose time ran out: the script ends it only while it is
// due, so it ends once, on time, whichever replicas are alive.
import { Value } from '@sinclair/typebox/value';
import type { Settings } from '../../../config/schema.ts';
import { clusterKey, type Cluster } from '../../../cluster/cluster.ts';
import { luaScript } from '../../../cluster/redis-link.ts';
import { clusterUnavailable } from '../../../cluster/redis-unavailable.ts';
import { isAppError } from '../../../errors.ts';
import type { DeadlineClock } from '../../../http/streams/token-deadlines.ts';
import type { AlarmLog } from '../monitor.ts';
import { ShelvingEntry as ShelvingEntrySchema } from '../schemas.ts';
import type { ShelvingFactory } from '../service.ts';
import {
  ShelvingBook,
  unshelved,
  type OutOfService,
  type Shelve,
  type ShelvingChange,
  type ShelvingEntry,
  type ShelvingPage,
  type ShelvingStore,
  type UnshelveCause,
} from '../shelving.ts';

const channel = 'alarm-shelving';

function shelvingKeys(plcId: string) {
  return {
    state: clusterKey('alarms', plcId, 'shelving'),
    seq: clusterKey('alarms', plcId, 'shelvingseq'),
    journal: clusterKey('alarms', plcId, 'shelvinglog'),
  };
}

// KEYS state, seq, journal; ARGV channel, journal length, field, op ('set', 'del' or 'due'), change JSON (without
// seq), plcId, now (ISO 8601 UTC, for 'due'). 'del' and 'due' change nothing (and answer false) unless the field is
// there, 'due' only while the stored shelve's until is at or before now (a later shelve replaced it otherwise).
// -> the entry JSON with its seq.
const change = luaScript(`
local field, op = ARGV[3], ARGV[4]
if op ~= 'set' then
  local stored = redis.call('HGET', KEYS[1], field)
  if not stored then return false end
  if op == 'due' then
    local due_at = string.match(stored, '"until":"([^"]*)"')
    if due_at == nil or due_at > ARGV[7] then return false end
  end
end
local seq = redis.call('INCR', KEYS[2])
local entry = '{"seq":' .. string.format('%.0f', seq) .. ',' .. string.sub(ARGV[5], 2)
if op == 'set' then redis.call('HSET', KEYS[1], field, entry) else redis.call('HDEL', KEYS[1], field) end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], string.format('%.0f', seq) .. '-0', 'e', entry)
redis.call('PUBLISH', ARGV[1], '{"plcId":' .. cjson.encode(ARGV[6]) .. ',"entry":' .. entry .. '}')
return entry
`);

/** A change as Redis holds it, when it is one (Redis is shared: what it holds is checked before it is used). */
function entryOf(text: string | undefined): ShelvingEntry | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(ShelvingEntrySchema, value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The hash field a change is about: `s:<key>` (shelving) or `o:<key>` (service). */
const fieldOf = (e: ShelvingEntry): string =>
  `${e.action === 'shelved' || e.action === 'unshelved' ? 's' : 'o'}:${e.code}`;

class SharedShelving extends ShelvingBook implements ShelvingStore {
  readonly #plcId: string;
  readonly #cluster: Cluster;
  readonly #keys: ReturnType<typeof shelvingKeys>;
  readonly #journalLength: number;
  readonly #log: AlarmLog;
  /**
   * The seq of the last change applied per field. A replica applies its own changes when the script answers and
   * gets them again published, and a published change may arrive after a later one answered: what is not newer
   * than the field's last change is old news.
   */
  readonly #applied = new Map<string, number>();
  #offRestored: (() => void) | undefined;

  constructor(plcId: string, cluster: Cluster, clock: DeadlineClock, journalLength: number, log: AlarmLog) {
    super(clock);
    this.#plcId = plcId;
    this.#cluster = cluster;
    this.#keys = shelvingKeys(plcId);
    this.#journalLength = journalLength;
    this.#log = log;
  }

  async start(): Promise<void> {
    // Redis may come back empty or have missed nothing: either way the copy is read again.
    this.#offRestored = this.#cluster.link.onRestored(() => void this.#reload());
    await this.#reload();
  }

  stop(): Promise<void> {
    this.#offRestored?.();
    this.stopTimers();
    return Promise.resolve();
  }

  /** A change published by any replica. */
  take(entry: ShelvingEntry): void {
    const field = fieldOf(entry);
    if ((this.#applied.get(field) ?? 0) >= entry.seq) return;
    this.#applied.set(field, entry.seq);
    this.apply(entry);
  }

  async putShelve(code: string, shelve: Shelve): Promise<ShelvingEntry> {
    return (await this.#change(`s:${code}`, 'set', { action: 'shelved', code, ...shelve })) as ShelvingEntry;
  }

  endShelve(code: string, cause: UnshelveCause, by?: string): Promise<ShelvingEntry | undefined> {
    return this.#change(`s:${code}`, 'del', unshelved(this.clock.now(), code, cause, by));
  }

  async putOutOfService(code: string, record: OutOfService): Promise<ShelvingEntry> {
    return (await this.#change(`o:${code}`, 'set', {
      action: 'outOfService',
      code,
      ...record,
    })) as ShelvingEntry;
  }

  returnToService(code: string, by: string): Promise<ShelvingEntry | undefined> {
    const at = new Date(this.clock.now()).toISOString();
    return this.#change(`o:${code}`, 'del', { at, action: 'returnedToService', code, by });
  }

  async journal(after: number | undefined, limit: number): Promise<ShelvingPage> {
    const rows = await this.#cluster.link
      .run('alarm-shelving', (r) =>
        r.xrange(this.#keys.journal, after === undefined ? '-' : `(${after}-0`, '+', 'COUNT', limit),
      )
      .catch((err: unknown) => {
        throw clusterUnavailable('The shelving journal is kept in the shared Redis.', err);
      });
    const items = rows.flatMap(([, fields]) => {
      const i = fields.indexOf('e');
      const entry = entryOf(i >= 0 ? fields[i + 1] : undefined);
      return entry === undefined ? [] : [entry];
    });
    return { items, nextAfter: items.at(-1)?.seq ?? after ?? 0 };
  }

  protected expire(code: string, shelve: Shelve): void {
    const now = new Date(this.clock.now()).toISOString();
    const ended = unshelved(Date.parse(shelve.until), code, 'expired');
    void this.#change(`s:${code}`, 'due', ended, now).catch((err: unknown) =>
      this.#log.warn(
        { plcId: this.#plcId, key: code, err: (err as Error).message },
        'alarm shelve ran out but Redis could not be told: it is ended when Redis is back',
      ),
    );
  }

  async #change(
    field: string,
    op: 'set' | 'del' | 'due',
    body: ShelvingChange,
    now = '',
  ): Promise<ShelvingEntry | undefined> {
    let answer: unknown;
    try {
      answer = await this.#cluster.link.eval(
        'alarm-shelving',
        change,
        [this.#keys.state, this.#keys.seq, this.#keys.journal],
        [
          clusterKey('channel', channel),
          this.#journalLength,
          field,
          op,
          JSON.stringify(body),
          this.#plcId,
          now,
        ],
      );
    } catch (err) {
      if (isAppError(err)) throw err;
      throw clusterUnavailable('Alarm shelving is kept in the shared Redis.', err);
    }
    if (typeof answer !== 'string') return undefined;
    const entry = entryOf(answer);
    if (entry === undefined) throw clusterUnavailable('Alarm shelving is kept in the shared Redis.', answer);
    // Applied now, so this replica answers with it at once; the published copy is then skipped.
    this.take(entry);
    return entry;
  }

  async #reload(): Promise<void> {
    try {
      const all = await this.#cluster.link.run('alarm-shelving', (r) => r.hgetall(this.#keys.state));
      const shelves = new Map<string, Shelve>();
      const outs = new Map<string, OutOfService>();
      // Redis may have come back empty, numbering from 1 again: the fields' last changes are what it holds now.
      this.#applied.clear();
      for (const [field, text] of Object.entries(all)) {
        const e = entryOf(text);
        if (e === undefined || fieldOf(e) !== field) {
          this.#log.warn(
            { plcId: this.#plcId, field },
            'alarm shelving field in Redis is not a change: ignored',
          );
          continue;
        }
        this.#applied.set(field, e.seq);
        const record = { by: e.by ?? '', at: e.at, reason: e.reason ?? '' };
        if (field.startsWith('s:') && e.until !== undefined)
          shelves.set(e.code, { ...record, until: e.until });
        else if (field.startsWith('o:')) outs.set(e.code, record);
      }
      this.replace(shelves, outs);
    } catch (err) {
      this.#log.warn(
        { plcId: this.#plcId, err: (err as Error).message },
        'alarm shelving not loaded from Redis yet',
      );
    }
  }
}

/** The shelving books of the monitored PLCs in cluster mode, fed by one subscription to the changes. */
export function sharedShelving(
  cluster: Cluster,
  settings: Settings['PlcAlarms'],
  log: AlarmLog,
): ShelvingFactory {
  const books = new Map<string, SharedShelving>();
  void cluster.subscribe(channel, (message) => {
    let parsed: { plcId?: unknown; entry?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return;
    }
    const book = typeof parsed.plcId === 'string' ? books.get(parsed.plcId) : undefined;
    const entry = Value.Check(ShelvingEntrySchema, parsed.entry)
      ? (parsed.entry as ShelvingEntry)
      : undefined;
    if (book !== undefined && entry !== undefined) book.take(entry);
  });
  return (plcId, clock) => {
    const book = new SharedShelving(plcId, cluster, clock, settings.ShelvingJournalLength, log);
    books.set(plcId, book);
    return book;
  };
}
