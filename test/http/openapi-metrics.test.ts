// /openapi.json (plcs routes listed, disabled areas hidden), /docs served, /metrics content.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

interface OpenApiDoc {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown;
        responses: Record<string, { content: Record<string, { schema: { properties: object } }> }>;
      }
    >
  >;
  components: { securitySchemes: Record<string, { scheme: string }> };
}

let app: FastifyInstance;
before(async () => {
  app = await buildTestApp({
    targets: [new FakeTarget('line1')],
    settings: { Features: { Alarms: false, Symbols: true } },
    extend: (a) => {
      const handler = () => ({ data: null, error: null });
      // A route of a disabled area; the enabled Symbols area is the real feature.
      a.get(
        '/api/plcs/:plcId/disabled-area',
        { config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: true } },
        handler,
      );
    },
  });
});
after(() => app.close());

describe('OpenAPI', () => {
  test('/openapi.json lists the enabled routes with bearer security and hides disabled areas', async () => {
    const res = await app.inject('/openapi.json');
    assert.equal(res.statusCode, 200);
    const doc = res.json<OpenApiDoc>();
    assert.match(doc.openapi, /^3\./);
    const paths = Object.keys(doc.paths);
    for (const p of ['/api/plcs', '/api/plcs/{plcId}/status', '/api/plcs/{plcId}/symbols', '/health/ready']) {
      assert.ok(paths.includes(p), p);
    }
    assert.ok(!paths.includes('/api/plcs/{plcId}/disabled-area'), 'disabled area listed');
    assert.ok(!paths.some((p) => p.startsWith('/docs') || p === '/metrics'));
    assert.deepEqual(doc.paths['/api/plcs']!.get!.security, [{ bearer: [] }]);
    // Anonymous routes (the document itself included) say so against the document-wide bearer requirement.
    assert.deepEqual(doc.paths['/health/ready']!.get!.security, []);
    assert.deepEqual(doc.paths['/openapi.json']!.get!.security, []);
    assert.equal(doc.components.securitySchemes.bearer!.scheme, 'bearer');
    const okSchema =
      doc.paths['/api/plcs/{plcId}/status']!.get!.responses['200']!.content['application/json']!.schema;
    assert.deepEqual(Object.keys(okSchema.properties).sort(), ['data', 'error']);
  });

  test('the disabled route is still registered and answers 501', async () => {
    const res = await app.inject({
      url: '/api/plcs/line1/disabled-area',
      headers: bearer(await mintToken()),
    });
    assert.equal(res.statusCode, 501);
    assert.equal(res.json().error.code, 'FEATURE_DISABLED');
  });

  test('/docs serves Swagger UI', async () => {
    const res = await app.inject('/docs');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /swagger/i);
  });
});

describe('metrics', () => {
  test('/metrics: request counts and durations by method, route template and status; process metrics', async () => {
    const token = bearer(await mintToken());
    await app.inject({ url: '/api/plcs/line1/status', headers: token });
    await app.inject({ url: '/api/plcs/line1/status', headers: token });
    await app.inject({ url: '/api/plcs/line1/status' });
    await app.inject({ url: '/no/such/route/12345' });
    const res = await app.inject('/metrics');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/plain/);
    const text = res.body;
    assert.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/plcs\/:plcId\/status",status_code="200"\} 2/,
    );
    assert.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/plcs\/:plcId\/status",status_code="401"\} 1/,
    );
    assert.match(
      text,
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/plcs\/:plcId\/status",status_code="200"\}/,
    );
    assert.match(
      text,
      /http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/plcs\/:plcId\/status",status_code="200"\} 2\n/,
    );
    assert.match(
      text,
      /http_request_duration_seconds_count\{method="GET",route="\/api\/plcs\/:plcId\/status",status_code="200"\} 2\n/,
    );
    assert.match(text, /# TYPE http_request_duration_seconds histogram/);
    assert.match(text, /route="unmatched",status_code="404"/);
    assert.doesNotMatch(text, /12345/);
    assert.match(text, /process_cpu_user_seconds_total/);
    assert.match(text, /nodejs_heap_size_total_bytes/);
  });

  test('each app has its own request counters', async () => {
    const other = await buildTestApp();
    try {
      const text = (await other.inject('/metrics')).body;
      assert.doesNotMatch(text, /route="\/api\/plcs\/:plcId\/status"/);
    } finally {
      await other.close();
    }
  });
});
