import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseListenUrl, reachableHost } from '../../src/config/listen-url.ts';
import { describeJsonError, lineAndColumn, parseJsonText } from '../../src/config/read-json.ts';
import { dottedPath } from '../../src/config/schema-errors.ts';
import {
  developmentSigningKey,
  isDevelopmentSigningKey,
  usesDevelopmentKey,
} from '../../src/config/development-key.ts';

describe('parseListenUrl', () => {
  const cases: Array<[string, { host: string; port: number } | 'error']> = [
    ['http://127.0.0.1:5000', { host: '127.0.0.1', port: 5000 }],
    ['http://localhost:8080/', { host: 'localhost', port: 8080 }],
    ['http://*:5000', { host: '0.0.0.0', port: 5000 }],
    ['http://+:5000;http://127.0.0.1:5001', { host: '0.0.0.0', port: 5000 }],
    ['http://[::1]:5000', { host: '::1', port: 5000 }],
    ['http://example.com', { host: 'example.com', port: 80 }],
    ['https://example.com:443', 'error'],
    ['127.0.0.1:5000', 'error'],
    ['http://host:99999', 'error'],
  ];
  for (const [input, expected] of cases) {
    it(input, () => {
      const result = parseListenUrl(input);
      if (expected === 'error') assert.equal(result.ok, false);
      else assert.deepEqual(result, { ok: true, ...expected });
    });
  }

  it('reachableHost maps wildcard binds to loopback', () => {
    assert.equal(reachableHost('0.0.0.0'), '127.0.0.1');
    assert.equal(reachableHost('::'), '[::1]');
    assert.equal(reachableHost('::1'), '[::1]');
    assert.equal(reachableHost('plc-gw.local'), 'plc-gw.local');
  });
});

describe('JSON reading', () => {
  it('lineAndColumn counts from 1', () => {
    assert.deepEqual(lineAndColumn('ab\ncd', 0), { line: 1, column: 1 });
    assert.deepEqual(lineAndColumn('ab\ncd', 4), { line: 2, column: 2 });
  });
  it('names the line and column of a syntax error', () => {
    const text = '{\n  "a": 1,\n}';
    assert.equal(
      describeJsonError(text, 'Expected double-quoted property name in JSON at position 12'),
      'Expected double-quoted property name at line 3, column 1',
    );
    assert.match(
      describeJsonError('{"a": 1', 'Unexpected end of JSON input'),
      /ends too early at line 1, column 8/,
    );
  });
  it('accepts a byte order mark', () => {
    assert.deepEqual(parseJsonText('\uFEFF{"a":1}'), { ok: true, value: { a: 1 } });
  });
});

describe('dottedPath', () => {
  it('joins object keys with dots and array indexes in brackets', () => {
    const doc = { PlcTargets: { line1: { Rpc: { Invokable: ['a', 'b'] } } } };
    assert.equal(dottedPath('/PlcTargets/line1/Rpc/Invokable/1', doc), 'PlcTargets.line1.Rpc.Invokable[1]');
    assert.equal(dottedPath('/a~1b/c~0d', {}), 'a/b.c~d');
  });
});

describe('development key', () => {
  it('is long enough for HS256 and recognised only when asked for', () => {
    assert.ok(developmentSigningKey.length >= 32);
    assert.equal(usesDevelopmentKey({ UseDevelopmentKey: true }), true);
    assert.equal(usesDevelopmentKey({ UseDevelopmentKey: false }), false);
    assert.equal(usesDevelopmentKey({}), false);
    assert.equal(usesDevelopmentKey({ SigningKey: developmentSigningKey }), true);
    assert.equal(usesDevelopmentKey({ SigningKey: 'x'.repeat(40) }), false);
    assert.equal(isDevelopmentSigningKey(developmentSigningKey), true);
    assert.equal(isDevelopmentSigningKey(undefined), false);
  });
});
