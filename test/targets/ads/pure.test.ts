// Table tests of the ADS target's pure parts: backoff, batching, error mapping, the uploaded type system.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay } from '../../../src/targets/ads/backoff.ts';
import { toBatches } from '../../../src/targets/ads/batches.ts';
import { classify, toAppError } from '../../../src/targets/ads/ads-errors.ts';
import { TypeCatalog, type UploadedType } from '../../../src/targets/ads/type-catalog.ts';
import { decode, encode } from '../../../src/simulator/engine/index.ts';
import { AppError } from '../../../src/errors.ts';

describe('backoffDelay', () => {
  const opts = { baseMs: 100, capMs: 1000 };
  const cases: Array<[number, number, number]> = [
    // attempt, random, expected
    [0, 0, 50],
    [0, 1, 100],
    [1, 0.5, 150],
    [3, 1, 800],
    [4, 1, 1000],
    [50, 0, 500],
    [-1, 1, 100],
  ];
  for (const [attempt, r, expected] of cases) {
    it(`attempt ${attempt}, jitter ${r} -> ${expected} ms`, () => {
      assert.equal(
        backoffDelay(attempt, opts, () => r),
        expected,
      );
    });
  }
});

describe('toBatches', () => {
  it('bounds count and bytes, keeps order, lets an oversized item travel alone', () => {
    const sizes = [10, 10, 10, 50, 200, 5, 5];
    const batches = toBatches(sizes, (s) => s, { maxCount: 2, maxBytes: 60 });
    assert.deepEqual(batches, [[10, 10], [10, 50], [200], [5, 5]]);
    assert.deepEqual(
      toBatches([], (s: number) => s, { maxCount: 2, maxBytes: 60 }),
      [],
    );
  });
  it('500 sub-commands per batch by default limits', () => {
    const items = Array.from({ length: 1001 }, () => 4);
    const batches = toBatches(items, (s) => s, { maxCount: 500, maxBytes: 512 * 1024 });
    assert.deepEqual(
      batches.map((b) => b.length),
      [500, 500, 1],
    );
  });
});

describe('ADS error mapping', () => {
  const clientError = (errorCode: number | undefined, trace: string[]) => ({
    adsError: { errorCode },
    trace,
    message: trace[0],
  });
  const cases: Array<[unknown, string, RegExp]> = [
    [clientError(1808, ['readRaw(): failed']), 'SYMBOL_NOT_FOUND', /symbol not found/],
    [clientError(1793, ['x']), 'ADS_ERROR', /ADS error 1793 \(service is not supported by server\)/],
    [clientError(1861, ['x']), 'ADS_TIMEOUT', /in time \(ADS error 1861/],
    [clientError(-1, ['a', 'sendAdsCommand(): Timeout for command Read']), 'ADS_TIMEOUT', /in time/],
    // Classified by code alone: a message that merely mentions a timeout is no timeout.
    [clientError(undefined, ['sendAdsCommand(): Timeout for command Read']), 'ADS_ERROR', /request failed/],
    [clientError(1798, ['x']), 'TYPE_MISMATCH', /refused it with ADS error 1798/],
    [clientError(6, ['x']), 'PLC_UNAVAILABLE', /ADS error 6 \(target port not found\)/],
    [new Error('EPIPE something internal'), 'ADS_ERROR', /request failed/],
  ];
  for (const [err, code, message] of cases) {
    it(`${JSON.stringify(err)} -> ${code}`, () => {
      const mapped = toAppError(err, 'Reading MAIN.x', 'press');
      assert.equal(mapped.code, code);
      assert.match(mapped.message, message);
      assert.doesNotMatch(mapped.message, /EPIPE|sendAdsCommand|readRaw\(\)/);
    });
  }
  it('passes AppErrors through and classifies', () => {
    const e = new AppError('TYPE_MISMATCH', 'x');
    assert.equal(toAppError(e, 'w', 'p'), e);
    assert.deepEqual(classify(clientError(1804, [])), { kind: 'ads', code: 1804 });
  });
});

function entry(e: Partial<UploadedType> & { name: string }): UploadedType {
  return {
    type: '',
    size: 0,
    offset: 0,
    comment: '',
    arrayInfos: [],
    subItems: [],
    enumInfos: [],
    rpcMethods: [],
    attributes: [],
    ...e,
  };
}

describe('TypeCatalog', () => {
  const le16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeInt16LE(n);
    return b;
  };
  const catalog = new TypeCatalog([
    entry({
      name: 'E_Mode',
      type: 'INT',
      size: 2,
      enumInfos: [
        { name: 'eOff', value: le16(-1) },
        { name: 'eOn', value: le16(10) },
      ],
    }),
    entry({ name: 'T_Speed', type: 'LREAL', size: 8 }),
    entry({
      name: 'ST_Packed',
      size: 7,
      comment: 'pack_mode 1',
      subItems: [
        entry({ name: 'b', type: 'BOOL', size: 1, offset: 0 }),
        entry({ name: 'n', type: 'DINT', size: 4, offset: 1, comment: 'unaligned' }),
        entry({ name: 'e', type: 'E_Mode', size: 2, offset: 5 }),
      ],
    }),
    entry({
      name: 'ST_WithArray',
      size: 16,
      subItems: [
        entry({ name: 'a', type: 'INT', size: 8, arrayInfos: [{ startIndex: 1, length: 4 }] }),
        entry({ name: 'p', type: 'POINTER TO INT', size: 8, offset: 8 }),
      ],
    }),
    entry({
      name: 'ARRAY [0..1] OF ST_Packed',
      type: 'ST_Packed',
      size: 14,
      arrayInfos: [{ startIndex: 0, length: 2 }],
    }),
    entry({
      name: 'FB_Thing',
      size: 8,
      subItems: [entry({ name: 'nCount', type: 'UDINT', size: 4 })],
      rpcMethods: [
        {
          name: 'Go',
          retunDataType: 'BOOL',
          returnTypeSize: 1,
          comment: '',
          attributes: [{ name: 'TcRpcEnable', value: '' }],
          parameters: [
            { name: 'nIn', type: 'DINT', size: 4, flags: 1 },
            { name: 'nOut', type: 'DINT', size: 4, flags: 2 },
            { name: 'nBoth', type: 'INT', size: 2, flags: 3 },
          ],
        },
      ],
    }),
    entry({ name: 'I_Opaque', size: 8 }),
  ]);

  it('builds enums from raw member bytes, in declaration order', () => {
    const t = catalog.resolve('e_mode');
    assert.equal(t.kind, 'enum');
    assert.deepEqual(t.kind === 'enum' && t.members, [
      { name: 'eOff', value: -1 },
      { name: 'eOn', value: 10 },
    ]);
  });

  it('keeps the PLC layout of structs (pack modes are not recomputed)', () => {
    const t = catalog.resolve('ST_Packed');
    assert.equal(t.size, 7);
    const bytes = encode(t, { b: true, n: -2, e: 'eOn' }, 'x');
    assert.deepEqual([...bytes], [1, 0xfe, 0xff, 0xff, 0xff, 10, 0]);
    assert.deepEqual(decode(t, bytes, 0), { b: true, n: -2, e: 10 });
  });

  it('resolves aliases, member arrays, pointers, array entries and derived names', () => {
    assert.equal(catalog.resolve('T_Speed').kind, 'primitive');
    const w = catalog.resolve('ST_WithArray');
    assert.ok(w.kind === 'struct');
    assert.equal(w.members[0]?.type.name, 'ARRAY [1..4] OF INT');
    assert.equal(w.members[1]?.type.name, 'ULINT');
    assert.equal(catalog.resolve('ARRAY [0..1] OF ST_Packed').size, 14);
    assert.equal(catalog.resolve('ARRAY [1..3] OF E_Mode').size, 6);
    assert.equal(catalog.resolve('STRING(20)').size, 21);
    assert.deepEqual(decode(catalog.resolve('I_Opaque'), Buffer.alloc(8), 0), {});
  });

  it('reads methods with their parameter directions', () => {
    const t = catalog.resolve('FB_Thing');
    assert.ok(t.kind === 'struct');
    const m = t.methods[0];
    assert.equal(m?.returnType?.name, 'BOOL');
    assert.deepEqual(
      m?.parameters.map((p) => [p.name, p.direction, p.type.name]),
      [
        ['nIn', 'in', 'DINT'],
        ['nOut', 'out', 'DINT'],
        ['nBoth', 'inout', 'INT'],
      ],
    );
  });

  it('TYPE_NOT_FOUND for names neither uploaded nor built in', () => {
    assert.throws(
      () => catalog.resolve('ST_Nope'),
      (e: unknown) => e instanceof AppError && e.code === 'TYPE_NOT_FOUND',
    );
    assert.throws(
      () => catalog.resolve(''),
      (e: unknown) => e instanceof AppError && e.code === 'TYPE_NOT_FOUND',
    );
  });
});
