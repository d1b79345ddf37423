// The audit trail as one Redis stream written by every replica and read by GET /api/admin/audit on any of them.
// Entry ids are `<seq>-0`, so the stream's own order is the trail's sequence and paging is an XRANGE.
import type { AuditEntry, AuditPage, AuditQuery, AuditRecord, AuditStore } from '../audit/store.ts';
import { AppError } from '../errors.ts';
import { clusterKey } from './cluster.ts';
import { luaScript, type RedisLink } from './redis-link.ts';

// KEYS[1] the stream; ARGV the record JSON, the length kept. The next seq follows the newest entry, atomically.
const append = luaScript(`
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local seq = 1
if #newest > 0 then seq = tonumber(string.match(newest[1][1], '^(%d+)')) + 1 end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], seq .. '-0', 'r', ARGV[1])
return seq
`);

/** Entries read per XRANGE while a PLC filter skips records. */
const scanBatch = 500;

type StreamEntries = Array<[id: string, fields: string[]]>;

export class SharedAuditStore implements AuditStore {
  readonly #link: RedisLink;
  readonly #length: number;
  readonly #key = clusterKey('audit');

  constructor(link: RedisLink, length: number) {
    this.#link = link;
    this.#length = length;
  }

  async append(entry: AuditEntry): Promise<AuditRecord> {
    const seq = Number(
      await this.#link.eval('audit', append, [this.#key], [JSON.stringify(entry), this.#length]),
    );
    return { seq, ...entry };
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    const items: AuditRecord[] = [];
    let cursor = query.after;
    for (;;) {
      const count = query.plcId === undefined ? query.limit - items.length : scanBatch;
      const entries = await this.#read(cursor, count);
      for (const [id, fields] of entries) {
        const seq = Number(id.slice(0, id.indexOf('-')));
        cursor = seq;
        const record = { seq, ...(JSON.parse(fields[1] ?? '{}') as AuditEntry) };
        if (query.plcId === undefined || record.plcId === query.plcId) items.push(record);
        if (items.length === query.limit) return { items, nextAfter: cursor };
      }
      if (entries.length < count) return { items, nextAfter: Math.max(query.after, cursor) };
    }
  }

  async #read(after: number, count: number): Promise<StreamEntries> {
    try {
      return await this.#link.run('audit', (r) => r.xrange(this.#key, `(${after}-0`, '+', 'COUNT', count));
    } catch {
      throw new AppError(
        'CLUSTER_UNAVAILABLE',
        'The audit trail is kept in the shared Redis, which is unreachable.',
      );
    }
  }
}
