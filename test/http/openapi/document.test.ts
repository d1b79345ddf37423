// The OpenAPI document with every feature flag on: Redocly's recommended rules find no error; operationIds are
// unique, camelCase and stable; tags are described; anonymous routes say so; the files route names {path}; event
// streams take access_token; each operation lists the error statuses its rules can answer, with the envelope.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operationIdOf } from '../../../src/http/openapi-operations.ts';
import { openApiDocument, type OpenApiDocument, type OpenApiOperation } from './document.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');

let doc: OpenApiDocument;
before(async () => {
  doc = await openApiDocument();
});

function operations(): Array<[string, string, OpenApiOperation]> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]): [string, string, OpenApiOperation] => [method, path, op]),
  );
}

function operation(method: string, path: string): OpenApiOperation {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method} ${path} is in the document`);
  return op;
}

describe('OpenAPI document, every flag on', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('redocly lint (recommended rules) reports no error and no warning', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const { stdout } = await run(
      process.execPath,
      [resolve(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json'],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    assert.deepEqual(
      report.totals,
      { ...report.totals, errors: 0, warnings: 0 },
      JSON.stringify(report.problems),
    );
  });

  test('every operation has a camelCase operationId, all unique', () => {
    const ids = operations().map(([, , op]) => op.operationId);
    assert.ok(ids.length > 40, `${ids.length} operations`);
    for (const id of ids) assert.match(String(id), /^[a-z][A-Za-z0-9]*$/);
    assert.equal(new Set(ids).size, ids.length, 'duplicate operationIds');
  });

  test('known operationIds stay what clients were generated with', () => {
    const known: Array<[string, string, string]> = [
      ['get', '/api/plcs', 'getPlcs'],
      ['get', '/api/plcs/{plcId}/status', 'getPlcStatus'],
      ['get', '/api/plcs/{plcId}/variables/{path}', 'getPlcVariablesByPath'],
      ['put', '/api/plcs/{plcId}/variables/{path}', 'putPlcVariablesByPath'],
      ['get', '/api/alarms', 'getAlarms'],
      ['get', '/api/plcs/{plcId}/alarms', 'getPlcAlarms'],
      ['post', '/api/plcs/{plcId}/alarms/{key}/acknowledge', 'postPlcAlarmsAcknowledge'],
      ['get', '/api/plcs/{plcId}/files/{path}', 'getPlcFilesByPath'],
      ['delete', '/api/admin/connections/{id}', 'deleteAdminConnectionsById'],
      ['get', '/mcp', 'getMcp'],
      ['post', '/mcp', 'postMcp'],
      ['get', '/health/ready', 'getHealthReady'],
    ];
    for (const [method, path, id] of known) assert.equal(operation(method, path).operationId, id, path);
  });

  test('operationIdOf: fastify and OpenAPI spellings of a route give the same id', () => {
    assert.equal(operationIdOf('GET', '/api/plcs/:plcId/files/*'), 'getPlcFilesByPath');
    assert.equal(operationIdOf('get', '/api/plcs/{plcId}/files/{path}'), 'getPlcFilesByPath');
    assert.equal(
      operationIdOf('GET', '/api/plcs/:plcId/types/:typeName/enum-members'),
      'getPlcTypesEnumMembers',
    );
  });

  test('tags are declared with descriptions, and only used ones', () => {
    const used = new Set(operations().flatMap(([, , op]) => op.tags ?? []));
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    assert.deepEqual([...declared.keys()].sort(), [...used].sort());
    for (const [name, description] of declared) assert.ok((description ?? '').length > 10, name);
  });

  test('servers, global bearer security, and security: [] on anonymous routes', () => {
    assert.deepEqual(
      doc.servers?.map((s) => s.url),
      ['/'],
    );
    for (const path of ['/health/live', '/health/ready', '/openapi.json'])
      assert.deepEqual(operation('get', path).security, [], path);
    assert.deepEqual(operation('get', '/api/plcs').security, [{ bearer: [] }]);
    assert.deepEqual(operation('post', '/mcp').security, [{ bearer: [] }]);
  });

  test('the files routes name their path parameter {path}', () => {
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('*')));
    for (const method of ['get', 'put']) {
      const params = operation(method, '/api/plcs/{plcId}/files/{path}').parameters ?? [];
      assert.deepEqual(
        params.filter((p) => p.in === 'path').map((p) => [p.name, p.required]),
        [
          ['plcId', true],
          ['path', true],
        ],
      );
    }
  });

  test('event streams take access_token in the query; other routes do not', () => {
    for (const path of [
      '/api/plcs/{plcId}/notifications/sse',
      '/api/plcs/{plcId}/alarms/stream',
      '/api/alarms/stream',
    ]) {
      const names = (operation('get', path).parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => p.name);
      assert.ok(names.includes('access_token'), path);
    }
    const plain = operation('get', '/api/plcs').parameters ?? [];
    assert.ok(!plain.some((p) => p.name === 'access_token'));
  });

  const statuses = (method: string, path: string): string[] =>
    Object.keys(operation(method, path).responses).filter((s) => /^\d+$/.test(s));

  test('statuses follow from the route rules, each with the error envelope', () => {
    // A per-PLC read: token, policy and plc_access, PLC lookup, limits, feature flag, ADS failures.
    assert.deepEqual(statuses('get', '/api/plcs/{plcId}/symbols'), [
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '501',
      '502',
      '503',
      '504',
    ]);
    // A fleet route refuses a token granting no PLC (403); no plcId, so no 404 and no ADS statuses.
    assert.deepEqual(statuses('get', '/api/plcs'), ['200', '400', '401', '403', '429', '500', '503']);
    // A body: 413 and 415; the simulation answers 409 in the wrong state.
    assert.ok(statuses('put', '/api/plcs/{plcId}/variables/{path}').includes('413'));
    assert.ok(statuses('post', '/api/plcs/{plcId}/sim/step').includes('409'));
    assert.ok(!statuses('get', '/api/plcs/{plcId}/sim/state').includes('409'));
    // Anonymous probes: no 401, no 429.
    assert.deepEqual(statuses('get', '/health/live'), ['200', '400', '500']);
    const forbidden = operation('get', '/api/plcs/{plcId}/status').responses['403']!;
    assert.match(forbidden.description, /FORBIDDEN/);
    assert.match(forbidden.description, /PLC_ACCESS_DENIED/);
    const schema = forbidden.content?.['application/json']?.schema as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema.properties).sort(), ['data', 'error']);
    assert.match(operation('get', '/api/alarms/stream').responses['429']!.description, /CONNECTION_LIMIT/);
  });

  test('/mcp is described with the answers of its transport', () => {
    const post = operation('post', '/mcp');
    assert.deepEqual(Object.keys(post.responses['200']!.content ?? {}).sort(), [
      'application/json',
      'text/event-stream',
    ]);
    for (const status of ['202', '401', '404', '406', '429', '501'])
      assert.ok(post.responses[status], `POST /mcp ${status}`);
    const gone = post.responses['404']!.content?.['application/json']?.schema as { properties: object };
    assert.deepEqual(Object.keys(gone.properties).sort(), ['error', 'id', 'jsonrpc']);
  });
});
