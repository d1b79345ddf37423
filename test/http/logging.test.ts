// URL redaction for logs (pure table) and error rendering of framework errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { redactUrl } from '../../src/http/redact-url.ts';
import { renderError } from '../../src/http/error-handler.ts';
import { AppError } from '../../src/errors.ts';
import { patternFor } from '../../src/http/route-index.ts';
import { buildTestApp } from '../helpers/app.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';
import { failingTarget } from '../features/variables/fixture.ts';

describe('redactUrl', () => {
  const cases: Array<[string, string]> = [
    ['/api/plcs', '/api/plcs'],
    ['/hub?access_token=abc.def.ghi', '/hub?access_token=[REDACTED]'],
    ['/hub?x=1&access_token=abc&y=2', '/hub?x=1&access_token=[REDACTED]&y=2'],
    ['/hub?ACCESS_TOKEN=abc', '/hub?ACCESS_TOKEN=[REDACTED]'],
    ['/hub?access%5Ftoken=abc', '/hub?access%5Ftoken=[REDACTED]'],
    ['/hub?access_token=a&access_token=b', '/hub?access_token=[REDACTED]&access_token=[REDACTED]'],
    ['/hub?access_token', '/hub?access_token=[REDACTED]'],
    ['/hub?access_token=abc#frag', '/hub?access_token=[REDACTED]#frag'],
    ['/hub?my_access_token=x', '/hub?my_access_token=[REDACTED]'],
    [
      '/api/plcs/a/variables?paths=GVL_HMI.stMachine.rSpeed',
      '/api/plcs/a/variables?paths=GVL_HMI.stMachine.rSpeed',
    ],
    ['/x?q=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln&y=1', '/x?q=[REDACTED]&y=1'],
    ['/x?eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln', '/x?[REDACTED]'],
    ['/x/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln/y', '/x/[REDACTED]/y'],
    [`/x?${'a'.repeat(3000)}`, `/x?${'a'.repeat(2045)}…[955 more characters]`],
    ['/hub?%E0%A4%A=1', '/hub?%E0%A4%A=1'],
  ];
  for (const [url, expected] of cases) {
    test(url, () => assert.equal(redactUrl(url), expected));
  }
});

describe('renderError', () => {
  test('AppError keeps its code, message and headers', () => {
    const r = renderError(new AppError('RATE_LIMITED', 'slow down', { 'Retry-After': '3' }));
    assert.deepEqual(r, {
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      headers: { 'Retry-After': '3' },
    });
  });

  test('framework 4xx errors map to catalog codes with safe messages', () => {
    const table: Array<[object, number, string]> = [
      [
        { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'internal' },
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: 'x' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ statusCode: 414, code: 'FST_ERR_MAX_PARAM_LENGTH', message: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ statusCode: 418, code: 'SOMETHING', message: 'teapot internals' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [err, status, code] of table) {
      const r = renderError(err);
      assert.equal(r.status, status);
      assert.equal(r.code, code);
      assert.notEqual(r.message, 'internal');
      assert.notEqual(r.message, 'teapot internals');
    }
  });

  test('validation errors keep fastify’s field-naming message', () => {
    const r = renderError({ statusCode: 400, validation: [], message: 'querystring/cycles must be integer' });
    assert.equal(r.message, 'querystring/cycles must be integer');
  });

  test('anything else is a 500 with the catalog message', () => {
    for (const err of [
      new Error('db password is hunter2'),
      'a string',
      null,
      { statusCode: 503, message: 'x' },
    ]) {
      const r = renderError(err);
      assert.equal(r.status, 500);
      assert.equal(r.code, 'INTERNAL_ERROR');
      assert.equal(r.message, 'An unexpected error occurred.');
    }
  });
});

describe('route patterns for 405', () => {
  test('templates match concrete paths', () => {
    const table: Array<[string, string, boolean]> = [
      ['/api/plcs/:plcId/status', '/api/plcs/line1/status', true],
      ['/api/plcs/:plcId/status', '/api/plcs/line1/x/status', false],
      ['/api/plcs/:plcId/variables/*', '/api/plcs/a/variables/MAIN.x[1]', true],
      ['/a.b', '/aXb', false],
      ['/api/:id(^\\d+)', '/api/12', true],
    ];
    for (const [template, path, expected] of table)
      assert.equal(patternFor(template).test(path), expected, `${template} ${path}`);
  });
});

describe('5xx log lines', () => {
  test('carry the error text once, under its own key', async () => {
    const lines: string[] = [];
    const app = await buildTestApp({
      targets: [failingTarget('ads-err', 'ADS_ERROR')],
      logger: { stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      const res = await app.inject({
        url: '/api/plcs/ads-err/variables/MAIN.nA',
        headers: bearer(await mintToken()),
      });
      assert.equal(res.statusCode, 502);
      const failed = lines.filter((l) => l.includes('request failed'));
      assert.equal(failed.length, 1, lines.join(''));
      const line = failed[0] ?? '';
      assert.equal(line.split('"msg":').length - 1, 1, line);
      assert.equal(line.split('ADS_ERROR from the driver').length - 1, 1, line);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.equal(parsed.msg, 'request failed');
      assert.equal(parsed.error, 'ADS_ERROR from the driver');
      assert.equal(parsed.code, 'ADS_ERROR');
    } finally {
      await app.close();
    }
  });
});
