// Redis is not trusted blindly, through HTTP on in-process replicas and real redis-servers: credentials (password,
// ACL user; in the URL or apart, never logged) and a warning when Redis lets anyone in; TLS with a CA of its own and
// a client certificate; a hung Redis (SIGSTOP) answered with 503 CLUSTER_UNAVAILABLE after one command timeout,
// the next requests failing at once until it answers again; forged entries dropped and logged, never served.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { clusterKey } from '../../src/cluster/cluster.ts';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { RedisServer, type RedisTls } from '../helpers/redis-server.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

interface Replica {
  app: FastifyInstance;
  /** Every log line so far. */
  lines: string[];
  /** Emits each log line as `line`. */
  log: EventEmitter;
}

const replicas: Replica[] = [];
/** A failing test ends with a report instead of waiting forever on a log line that never comes. */
const bounded = { timeout: 60_000 };

async function startReplica(cluster: Record<string, unknown>, id = 'r1'): Promise<Replica> {
  const log = new EventEmitter();
  const lines: string[] = [];
  const app = await buildTestApp({
    logger: {
      level: 'info',
      stream: {
        write: (line: string) => {
          lines.push(line);
          log.emit('line', line);
        },
      },
    },
    targets: [new FakeTarget('line1', { adsState: 'Stop' })],
    settings: {
      Features: { Lifecycle: true },
      Cluster: { ReplicaId: id, HeartbeatSeconds: 1, ...cluster },
    },
  });
  const replica = { app, lines, log };
  replicas.push(replica);
  return replica;
}

/** Resolves with the first log line (logged before or after the call) that contains `text`. */
function logged(replica: Replica, text: string): Promise<string> {
  const seen = replica.lines.find((l) => l.includes(text));
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const onLine = (line: string): void => {
      if (!line.includes(text)) return;
      replica.log.off('line', onLine);
      resolve(line);
    };
    replica.log.on('line', onLine);
  });
}

/** The envelope's error of a refused request. */
const errorOf = (res: { json(): unknown }): { code: string; message: string } =>
  (res.json() as { error: { code: string; message: string } }).error;

const admin = async () => bearer(await mintToken({ sub: 'admin-1' }));

/** A lifecycle stop (audited) and the audit trail read back: proves the replica reads and writes Redis. */
async function auditRoundTrip(replica: Replica): Promise<unknown[]> {
  const headers = await admin();
  const stop = await replica.app.inject({ method: 'POST', url: '/api/plcs/line1/lifecycle/stop', headers });
  assert.equal(stop.statusCode, 200, stop.body);
  const res = await replica.app.inject({ url: '/api/admin/audit', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: { items: Array<{ action: string }> } }>().data.items.map((r) => r.action);
}

after(async () => {
  for (const r of replicas) await r.app.close();
});

describe('cluster: Redis credentials', () => {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start({
      args: [
        '--requirepass',
        'default-secret',
        '--user',
        'gateway',
        'on',
        '>gateway-secret',
        '~plc-gateway:*',
        '&plc-gateway:*',
        '+@all',
      ],
    });
  });
  after(async () => {
    await redis.kill();
  });

  it(
    'an ACL user and password given apart, or in the URL: served; never logged; no warning',
    bounded,
    async () => {
      const apart = await startReplica({ Redis: redis.url, Username: 'gateway', Password: 'gateway-secret' });
      assert.deepEqual(await auditRoundTrip(apart), ['lifecycle.stop']);
      const inUrl = await startReplica(
        { Redis: `redis://gateway:gateway-secret@127.0.0.1:${redis.port}` },
        'r2',
      );
      const res = await inUrl.app.inject({ url: '/api/admin/audit', headers: await admin() });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().data.items[0].sub, 'admin-1', 'both replicas share the trail');
      for (const r of [apart, inUrl]) {
        const all = r.lines.join('\n');
        assert.ok(!all.includes('gateway-secret'), 'the password is never logged');
        assert.ok(!all.includes('without authentication'));
        assert.ok(!all.includes('needs no password'));
      }
    },
  );

  it(
    'a wrong password: the refusal is logged (without the password), and Redis-backed routes answer 503',
    bounded,
    async () => {
      const wrong = await startReplica({ Redis: redis.url, Username: 'gateway', Password: 'guess' }, 'r3');
      const line = await logged(wrong, 'shared Redis refused the credentials');
      assert.match(line, /WRONGPASS/);
      assert.ok(!wrong.lines.join('\n').includes('guess'));
      const res = await wrong.app.inject({ url: '/api/admin/connections', headers: await admin() });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, 'CLUSTER_UNAVAILABLE');
      assert.match(errorOf(res).message, /unreachable \(not connected\)/);
    },
  );
});

describe('cluster: start-up warns when Redis lets anyone in', () => {
  let open: RedisServer;
  let openDefault: RedisServer;
  before(async () => {
    open = await RedisServer.start();
    // An ACL user for the gateway, but the default user left without a password.
    openDefault = await RedisServer.start({
      args: ['--user', 'gateway', 'on', '>gw-pw', '~*', '&*', '+@all'],
    });
  });
  after(async () => {
    await open.kill();
    await openDefault.kill();
  });

  it('connected without credentials: warned', bounded, async () => {
    const r = await startReplica({ Redis: open.url }, 'w1');
    const line = await logged(r, 'cluster mode on a Redis without authentication');
    assert.match(line, /"level":40/);
    assert.match(line, new RegExp(`"redis":"127.0.0.1:${open.port}"`));
  });

  it("authenticated, but Redis's default user needs no password: warned", bounded, async () => {
    const r = await startReplica({ Redis: openDefault.url, Username: 'gateway', Password: 'gw-pw' }, 'w2');
    await logged(r, "Redis's default user needs no password");
    assert.ok(!r.lines.join('\n').includes('gw-pw'));
  });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl in a temp folder. */
function makeCertificates(): RedisTls & { clientCert: string; clientKey: string } {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  return ((): RedisTls & { clientCert: string; clientKey: string } => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=test-ca',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
    );
    for (const [name, san] of [
      ['server', 'IP:127.0.0.1,DNS:localhost'],
      ['client', 'DNS:gateway'],
    ] as const) {
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        `/CN=${name}`,
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.csr`),
      );
      writeFileSync(file(`${name}.ext`), `subjectAltName=${san}\n`);
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        file(`${name}.ext`),
        '-out',
        file(`${name}.pem`),
      );
    }
    return {
      caFile: file('ca.pem'),
      certFile: file('server.pem'),
      keyFile: file('server.key'),
      clientCert: file('client.pem'),
      clientKey: file('client.key'),
    };
  })();
}

describe('cluster: TLS (rediss://) with a CA file and a client certificate', () => {
  let redis: RedisServer;
  let certs: ReturnType<typeof makeCertificates>;
  before(async () => {
    certs = makeCertificates();
    redis = await RedisServer.start({ tls: certs, args: ['--tls-auth-clients', 'yes'] });
  });
  after(async () => {
    await redis.kill();
  });

  it(
    'connects with the CA file and the client certificate; without the CA the server is not trusted',
    bounded,
    async () => {
      assert.match(redis.url, /^rediss:\/\//);
      const trusted = await startReplica(
        {
          Redis: redis.url,
          TlsCaFile: certs.caFile,
          TlsCertFile: certs.clientCert,
          TlsKeyFile: certs.clientKey,
        },
        't1',
      );
      assert.deepEqual(await auditRoundTrip(trusted), ['lifecycle.stop']);
      const untrusted = await startReplica({ Redis: redis.url }, 't2');
      const res = await untrusted.app.inject({ url: '/api/admin/audit', headers: await admin() });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, 'CLUSTER_UNAVAILABLE');
    },
  );
});

describe('cluster: a hung Redis', () => {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    redis.resume();
    await redis.kill();
  });

  it(
    'GET /api/admin/connections answers 503 CLUSTER_UNAVAILABLE after one command timeout, then fails fast; back once Redis answers',
    bounded,
    async () => {
      const r = await startReplica({ Redis: redis.url, CommandTimeoutMs: 300 }, 'h1');
      const headers = await admin();
      const list = () => r.app.inject({ url: '/api/admin/connections', headers });
      assert.equal((await list()).statusCode, 200);
      redis.pause();
      const first = await list();
      assert.equal(first.statusCode, 503, first.body);
      assert.equal(first.json().error.code, 'CLUSTER_UNAVAILABLE');
      // What produced it: a command that ran into Cluster.CommandTimeoutMs; from then on Redis is taken as hung.
      assert.match(errorOf(first).message, /a command timed out/);
      const hung = await logged(r, 'shared Redis hangs: a command timed out');
      assert.match(hung, /"timeoutMs":300/);
      // The next request does not wait for a timeout of its own: it is refused as hung at once.
      const second = await list();
      assert.equal(second.statusCode, 503);
      assert.match(errorOf(second).message, /not answering: a command timed out/);
      const health = await r.app.inject({ url: '/health/ready', headers: await admin() });
      assert.equal(
        health
          .json<{ checks: Array<{ name: string; data: { redis: string } }> }>()
          .checks.find((c) => c.name === 'cluster')?.data.redis,
        'Unreachable',
      );
      r.lines.length = 0;
      const back = logged(r, 'shared Redis reachable');
      redis.resume();
      await back;
      assert.equal((await list()).statusCode, 200);
    },
  );
});

describe('cluster: forged entries in Redis', () => {
  let redis: RedisServer;
  let raw: Redis;
  before(async () => {
    redis = await RedisServer.start();
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await redis.kill();
  });

  it(
    'audit entries, stream rows and terminate messages of a bad shape are dropped and logged, not served',
    bounded,
    async () => {
      const a = await startReplica({ Redis: redis.url }, 'f1');
      const b = await startReplica({ Redis: redis.url }, 'f2');
      const headers = await admin();
      assert.deepEqual(await auditRoundTrip(a), ['lifecycle.stop']);
      // Audit: one entry not JSON, one of the wrong shape (an action the gateway never records, an extra field),
      // one well-formed but with a foreign id; then a real record after them.
      const good = JSON.parse(
        ((await raw.xrange(clusterKey('audit'), '-', '+'))[0]?.[1] ?? [])[1] ?? '{}',
      ) as Record<string, unknown>;
      await raw.xadd(clusterKey('audit'), '2-0', 'r', '{not json');
      await raw.xadd(
        clusterKey('audit'),
        '3-0',
        'r',
        JSON.stringify({ ...good, action: 'drop.tables', x: 1 }),
      );
      await raw.xadd(clusterKey('audit'), '4-5', 'r', JSON.stringify(good));
      await raw.xadd(clusterKey('audit', 'refusals'), '5-0', 'r', JSON.stringify({ ...good, plcId: 42 }));
      // A real record after them takes the next seq after the newest entry of either stream.
      const refused = await b.app.inject({ method: 'DELETE', url: '/api/admin/connections/nope', headers });
      assert.equal(refused.statusCode, 404);
      const audit = await a.app.inject({ url: '/api/admin/audit', headers });
      assert.equal(audit.statusCode, 200, audit.body);
      const items = audit.json<{ data: { items: Array<{ seq: number; action: string }> } }>().data.items;
      assert.deepEqual(
        items.map((i) => [i.seq, i.action]),
        [
          [1, 'lifecycle.stop'],
          [6, 'connection.terminate'],
        ],
      );
      for (const id of ['2-0', '3-0', '4-5', '5-0'])
        await logged(a, `"id":"${id}","msg":"audit entry in Redis dropped: not an audit record"`);

      // A stream row of the other replica that is not a row, and one claiming to be served by someone else.
      await raw.hset(clusterKey('streams', 'f2'), 'forged-1', '{"id":"forged-1"}');
      await raw.hset(
        clusterKey('streams', 'f2'),
        'forged-2',
        JSON.stringify({
          id: 'forged-2',
          kind: 'notifications.sse',
          plcId: 'line1',
          user: 'u',
          remote: '10.0.0.1',
          openedAt: new Date().toISOString(),
          symbols: [],
          sent: 0,
          dropped: 0,
          replica: 'elsewhere',
        }),
      );
      const listing = await a.app.inject({ url: '/api/admin/connections', headers });
      assert.equal(listing.statusCode, 200, listing.body);
      assert.deepEqual(listing.json().data, []);
      await logged(a, 'stream row in Redis dropped: not a stream row of its replica');
      const end = await a.app.inject({ method: 'DELETE', url: '/api/admin/connections/forged-2', headers });
      assert.equal(end.statusCode, 404);

      // A terminate message that is not one: logged, and the replica carries on.
      await raw.publish(clusterKey('channel', 'terminate'), '{not json');
      await logged(a, 'stream terminate message dropped');
      assert.equal((await a.app.inject({ url: '/api/admin/connections', headers })).statusCode, 200);
    },
  );
});
