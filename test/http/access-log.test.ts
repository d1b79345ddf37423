// One access line per request, and nothing lost from the asynchronous log writer when the gateway shuts down
// or crashes (a real `serve` process writing to its stdout).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';
import { testSigningKey } from '../helpers/config.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

interface LogLine {
  level: number;
  msg: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

const parseLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe('access log', () => {
  let app: FastifyInstance;
  let output: string[];
  before(async () => {
    output = [];
    app = await buildTestApp({
      targets: [new FakeTarget('line1')],
      logger: { stream: { write: (line: string) => void output.push(line) } },
    });
  });
  after(() => app.close());

  test('exactly one line per request, served or refused, with method, URL, status and time', async () => {
    output.length = 0; // start-up lines (a console not built, for one) are not request lines
    const token = await mintToken();
    const requests: Array<[string, Record<string, string>, number]> = [
      ['/api/plcs', bearer(token), 200],
      ['/api/plcs', {}, 401],
      ['/no/such/route', {}, 404],
      ['/health/live', {}, 200],
    ];
    for (const [url, headers, status] of requests) {
      assert.equal((await app.inject({ url, headers })).statusCode, status);
    }
    const lines = parseLines(output.join(''));
    assert.equal(lines.length, requests.length, output.join(''));
    lines.forEach((line, i) => {
      assert.equal(line.msg, 'request completed');
      assert.equal(line.req?.method, 'GET');
      assert.equal(line.req?.url, requests[i]![0]);
      assert.equal(line.res?.statusCode, requests[i]![2]);
      assert.equal(typeof line.responseTime, 'number');
    });
  });

  test('a long URL is cut in the line', async () => {
    output.length = 0;
    const url = `/api/plcs?${'p=x&'.repeat(2000)}`;
    await app.inject({ url });
    const [line] = parseLines(output.join(''));
    assert.ok(line?.req !== undefined);
    assert.ok(line.req.url.length < 2100, `logged ${line.req.url.length} characters`);
    assert.match(line.req.url, /more characters\]$/);
  });
});

describe('the log of a serve process is complete after shutdown and after a crash', () => {
  let dir: string;
  let configFile: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plc-gateway-log-'));
    configFile = join(dir, 'appsettings.json');
    await writeFile(configFile, JSON.stringify({ Auth: { SigningKey: testSigningKey } }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function run(end: 'SIGTERM' | 'crash'): Promise<{ lines: LogLine[]; code: number | null }> {
    const child = fork(
      new URL('../helpers/serve-process.ts', import.meta.url).pathname,
      ['serve', '--config', configFile, '--port', '0'],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = once(child, 'exit');
    const [{ url }] = (await once(child, 'message')) as [{ url: string }];
    const token = await mintToken();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${url}/api/plcs?n=${i}`, { headers: bearer(token) }).then((r) => r.status),
      ),
    );
    assert.deepEqual(new Set(answers), new Set([200]));
    if (end === 'SIGTERM') child.kill('SIGTERM');
    else child.send('crash');
    const [code] = (await exited) as [number | null];
    if (child.stdout!.readable) await once(child.stdout!, 'end');
    return { lines: parseLines(stdout), code };
  }

  function assertEveryRequestLogged(lines: LogLine[]): void {
    const urls = new Set(lines.filter((l) => l.msg === 'request completed').map((l) => l.req?.url));
    for (let i = 0; i < 200; i++) assert.ok(urls.has(`/api/plcs?n=${i}`), `request ${i} is not in the log`);
  }

  test('SIGTERM: every access line and the last line written', async () => {
    const { lines, code } = await run('SIGTERM');
    assert.equal(code, 0);
    assertEveryRequestLogged(lines);
    assert.equal(lines.at(-1)?.msg, 'plc-gateway stopped');
  });

  test('an uncaught exception: every access line and the crash itself written', async () => {
    const { lines, code } = await run('crash');
    assert.notEqual(code, 0);
    assertEveryRequestLogged(lines);
    const fatal = lines.find((l) => l.level === 60);
    assert.equal(fatal?.msg, 'uncaught exception, exiting');
  });
});
