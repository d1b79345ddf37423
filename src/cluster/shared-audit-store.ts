// The audit trail as two Redis streams written by every replica and read by GET /api/admin/audit on any of them:
// changes and refusals, each trimmed to its own length, one sequence over both. Entry ids are `<seq>-0`, so a
// stream's own order is the trail's and paging is an XRANGE per stream, merged. An entry read back that is not an
// audit entry's shape (written by something else with access to Redis) is dropped and logged, never served.
import {
  pageAudit,
  type AuditCapacities,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditRing,
  type AuditSource,
  type AuditStore,
  type DroppedAuditRecord,
} from '../audit/store.ts';
import { asAuditEntry } from '../audit/wire.ts';
import { clusterKey } from './cluster.ts';
import { luaScript, type ClusterLog, type RedisLink } from './redis-link.ts';
import { clusterUnavailable } from './redis-unavailable.ts';

// KEYS[1] the stream to add to, KEYS[2] the other ring's; ARGV the record JSON, the length kept. The next seq
// follows the newest entry of either stream, atomically.
const append = luaScript(`
local seq = 1
for _, key in ipairs(KEYS) do
  local newest = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #newest > 0 then
    local n = tonumber(string.match(newest[1][1], '^(%d+)'))
    if n and n + 1 > seq then seq = n + 1 end
  end
end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], seq .. '-0', 'r', ARGV[1])
return seq
`);

/** Entries read per XRANGE while a PLC filter skips records. */
const scanBatch = 500;

type StreamEntries = Array<[id: string, fields: string[]]>;

const keys: Readonly<Record<AuditRing, string>> = {
  changes: clusterKey('audit'),
  refusals: clusterKey('audit', 'refusals'),
};

export class SharedAuditStore implements AuditStore {
  readonly #link: RedisLink;
  readonly #lengths: AuditCapacities;
  readonly #log: ClusterLog;

  constructor(link: RedisLink, lengths: AuditCapacities, log: ClusterLog) {
    this.#link = link;
    this.#lengths = lengths;
    this.#log = log;
  }

  async append(entry: AuditEntry, ring: AuditRing): Promise<AuditRecord> {
    const other: AuditRing = ring === 'changes' ? 'refusals' : 'changes';
    const seq = Number(
      await this.#link.eval(
        'audit',
        append,
        [keys[ring], keys[other]],
        [JSON.stringify(entry), this.#lengths[ring]],
      ),
    );
    return { seq, ...entry };
  }

  list(query: AuditQuery): Promise<AuditPage> {
    const rings = query.ring === undefined ? (['changes', 'refusals'] as const) : [query.ring];
    return pageAudit(
      rings.map((ring) => this.#source(ring)),
      query,
      scanBatch,
    );
  }

  #source(ring: AuditRing): AuditSource {
    return {
      read: async (after, count) => {
        const entries = await this.#read(keys[ring], after, count);
        // A dropped entry keeps its place (the cursor moves past it), so the batch is as long as Redis answered.
        return entries.map(
          ([id, fields]): AuditRecord | DroppedAuditRecord =>
            this.#record(ring, id, fields) ?? { seq: seqOf(id), dropped: true },
        );
      },
    };
  }

  #record(ring: AuditRing, id: string, fields: readonly string[]): AuditRecord | undefined {
    const seq = seqOf(id);
    let value: unknown;
    try {
      value = fields[0] === 'r' && fields.length === 2 ? (JSON.parse(fields[1] ?? '') as unknown) : undefined;
    } catch {
      value = undefined;
    }
    const entry = /^\d{1,15}-0$/.test(id) ? asAuditEntry(value) : undefined;
    if (entry === undefined) {
      // The id only: the entry's content is what is not trusted.
      this.#log.warn(
        { stream: keys[ring], id: id.slice(0, 64) },
        'audit entry in Redis dropped: not an audit record',
      );
      return undefined;
    }
    return { seq, ...entry };
  }

  async #read(key: string, after: number, count: number): Promise<StreamEntries> {
    try {
      return await this.#link.run('audit', (r) => r.xrange(key, `(${after}-0`, '+', 'COUNT', count));
    } catch (err) {
      throw clusterUnavailable('The audit trail is kept in the shared Redis.', err);
    }
  }
}

function seqOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}
