// Every value kind through PUT then GET /variables/{path}: integer edges, 64-bit integers as strings, floats,
// STRING(n)/WSTRING(n) at n and n+1, times and dates, enums by name and value, structs, arrays and nesting.
// A rejected write answers 400 TYPE_MISMATCH and leaves the PLC value as it was.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import { caller, startTestPlc, testDrivers, type Call, type TestPlc } from './fixture.ts';

for (const driver of testDrivers) {
  describe(`value conversions (${driver})`, () => {
    let sim: TestPlc;
    let app: FastifyInstance;
    let call: Call;

    before(async () => {
      sim = await startTestPlc('sim1', driver);
      app = await buildTestApp({
        targets: [sim.target],
        settings: { RateLimiting: { GlobalPerUser: 100_000 } },
      });
      call = await caller(app);
    });
    after(async () => {
      await app.close();
      await sim.close();
    });

    const url = (path: string) => `/api/plcs/sim1/variables/${encodeURIComponent(path)}`;

    async function read(path: string): Promise<unknown> {
      const res = await call('GET', url(path));
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { value: unknown } }>().data.value;
    }

    /** Writes, checks the write's answer and a later read both show `expected`. */
    async function roundTrip(path: string, value: unknown, expected: unknown = value): Promise<void> {
      const res = await call('PUT', url(path), { value });
      assert.equal(res.statusCode, 200, `${path} <- ${JSON.stringify(value)}: ${res.body}`);
      assert.deepEqual(res.json().data.value, expected, `${path} <- ${JSON.stringify(value)} (write answer)`);
      assert.deepEqual(await read(path), expected, `${path} <- ${JSON.stringify(value)} (read)`);
    }

    async function refused(path: string, value: unknown): Promise<void> {
      const before = await read(path);
      const res = await call('PUT', url(path), { value });
      assert.equal(res.statusCode, 400, `${path} <- ${JSON.stringify(value)}: ${res.body}`);
      assert.equal(res.json().error.code, 'TYPE_MISMATCH', `${path} <- ${JSON.stringify(value)}`);
      assert.deepEqual(await read(path), before, `${path} unchanged after a refused write`);
    }

    // An ok entry is a value read back as written, or a [written, read] pair.
    type Case = [type: string, ok: unknown[], bad: unknown[]];

    // [value] is written and read back as is; [[written, read]] reads back differently.
    const elementary: Case[] = [
      ['BOOL', [true, false], [1, 'true', null]],
      ['SINT', [-128, 127, 0], [-129, 128, 1.5, '1']],
      ['USINT', [0, 255], [-1, 256]],
      ['INT', [-32768, 32767], [-32769, 32768]],
      ['UINT', [0, 65535], [-1, 65536]],
      ['DINT', [-2147483648, 2147483647], [-2147483649, 2147483648]],
      ['UDINT', [0, 4294967295], [-1, 4294967296]],
      [
        'LINT',
        ['-9223372036854775808', '9223372036854775807', [42, '42'], [' -7 ', '-7']],
        ['9223372036854775808', '-9223372036854775809', 1e20, '1.5', 'abc'],
      ],
      [
        'ULINT',
        ['18446744073709551615', '0', [9007199254740991, '9007199254740991']],
        ['18446744073709551616', '-1'],
      ],
      ['LWORD', ['18446744073709551615'], ['-1']],
      [
        'REAL',
        // 3.4028235e38 is how C# and Java print the largest float: it rounds to it, so it is accepted.
        [
          1.5,
          -2.25,
          [0.1, 0.10000000149011612],
          3.4028234663852886e38,
          [3.4028235e38, 3.4028234663852886e38],
          [-3.4028235e38, -3.4028234663852886e38],
        ],
        [3.5e38, 3.4028236e38, -3.4028236e38, '1', null],
      ],
      ['LREAL', [0.1, -1.7976931348623157e308, 5e-324], ['0.1', true]],
    ];

    describe('elementary types', () => {
      for (const [type, ok, bad] of elementary) {
        test(type, async () => {
          const path = `GVL_Test.v${type}`;
          for (const c of ok) {
            if (Array.isArray(c)) await roundTrip(path, c[0], c[1]);
            else await roundTrip(path, c);
          }
          for (const b of bad) await refused(path, b);
        });
      }

      test('the answer of a read names symbol, type and an ISO 8601 timestamp', async () => {
        const res = await call('GET', url('GVL_Test.vUDINT'));
        const data = res.json<{ data: Record<string, unknown> }>().data;
        assert.deepEqual(Object.keys(data), ['symbol', 'value', 'typeName', 'timestamp']);
        assert.equal(data.symbol, 'GVL_Test.vUDINT');
        assert.equal(data.typeName, 'UDINT');
        assert.equal(data.timestamp, '2024-05-17T08:30:00.250Z');
      });
    });

    describe('strings', () => {
      test('STRING(10): 10 characters fit, 11 do not; code page 1252 only', async () => {
        await roundTrip('GVL_Test.sText', 'abcdefghij');
        await roundTrip('GVL_Test.sText', '');
        await roundTrip('GVL_Test.sText', 'Grüße €5');
        await refused('GVL_Test.sText', 'abcdefghijk');
        await refused('GVL_Test.sText', '日本');
        await refused('GVL_Test.sText', 5);
        assert.equal((await call('GET', url('GVL_Test.sText'))).json().data.typeName, 'STRING(10)');
      });

      test('WSTRING(10): any UTF-16 text up to 10 code units', async () => {
        await roundTrip('GVL_Test.wsText', '日本語のテキスト十字');
        await roundTrip('GVL_Test.wsText', 'Ωmega');
        await refused('GVL_Test.wsText', '日本語のテキスト十字超');
      });
    });

    describe('times and dates', () => {
      test('TIME and TOD in milliseconds', async () => {
        await roundTrip('GVL_Test.tTime', 0);
        await roundTrip('GVL_Test.tTime', 4294967295);
        await refused('GVL_Test.tTime', -1);
        await refused('GVL_Test.tTime', 1.5);
        await refused('GVL_Test.tTime', 'T#1s');
        await roundTrip('GVL_Test.todTime', 86399999);
        await refused('GVL_Test.todTime', 86400000);
      });

      test('DATE and DT as ISO 8601 strings, read back in UTC', async () => {
        await roundTrip('GVL_Test.dDate', '2024-05-17', '2024-05-17T00:00:00.000Z');
        await refused('GVL_Test.dDate', '2024-05-17T10:00:00Z');
        await refused('GVL_Test.dDate', '2024-02-30');
        await roundTrip('GVL_Test.dtStamp', '2024-05-17T10:20:30Z', '2024-05-17T10:20:30.000Z');
        await roundTrip('GVL_Test.dtStamp', '2024-05-17T12:20:30+02:00', '2024-05-17T10:20:30.000Z');
        await refused('GVL_Test.dtStamp', 'yesterday');
        await refused('GVL_Test.dtStamp', 1715941230);
      });
    });

    describe('enums', () => {
      test('by member name (any case), { name } or by value; read as the integer', async () => {
        await roundTrip('GVL_Test.eMode', 'eRun', 10);
        await roundTrip('GVL_Test.eMode', 'EOFF', -5);
        await roundTrip('GVL_Test.eMode', 12, 12);
        await roundTrip('GVL_Test.eMode', { name: 'eidle' }, 0);
        await roundTrip('GVL_Test.eMode', { name: 'eDone', value: 12 }, 12);
        // A value of the base type that names no member is stored as a PLC would (with a warning logged).
        await roundTrip('GVL_Test.eMode', 11, 11);
        await refused('GVL_Test.eMode', 'eNope');
        await refused('GVL_Test.eMode', 40000);
        await refused('GVL_Test.eMode', true);
      });
    });

    describe('structs, arrays and nesting', () => {
      const axis = { sId: 'X', rPosition: 1.5, bEnabled: true, eMode: 10 };

      test('a struct reads as an object by member name; a partial write keeps the other members', async () => {
        assert.deepEqual(await read('GVL_Test.stAxis'), axis);
        await roundTrip('GVL_Test.stAxis', { rPosition: -3.25 }, { ...axis, rPosition: -3.25 });
        await roundTrip(
          'GVL_Test.stAxis',
          { SID: 'Y', eMode: 'eOff' },
          {
            ...axis,
            sId: 'Y',
            rPosition: -3.25,
            eMode: -5,
          },
        );
      });

      test('a struct write with an unknown member or a bad member value is refused whole', async () => {
        await refused('GVL_Test.stAxis', { nope: 1 });
        await refused('GVL_Test.stAxis', { rPosition: 7, bEnabled: 'yes' });
        await refused('GVL_Test.stAxis', [1, 2]);
        const res = await call('PUT', url('GVL_Test.stAxis'), { value: { sId: 'way-too-long-for-15' } });
        assert.match(res.json<{ error: { message: string } }>().error.message, /GVL_Test\.stAxis\.sId/);
      });

      test('arrays: the whole array needs its exact length; elements by index', async () => {
        await roundTrip('GVL_Test.aInts', [5, 4, 3, 2, 1]);
        await refused('GVL_Test.aInts', [1, 2, 3, 4]);
        await refused('GVL_Test.aInts', [1, 2, 3, 4, 5, 6]);
        await refused('GVL_Test.aInts', [1, 2, 3, 4, 'x']);
        await roundTrip('GVL_Test.aInts[2]', -9);
        assert.deepEqual(await read('GVL_Test.aInts'), [5, -9, 3, 2, 1]);
        assert.equal((await call('GET', url('GVL_Test.aInts[6]'))).json().error.code, 'SYMBOL_NOT_FOUND');
      });

      test('nested structs and multi-dimensional arrays', async () => {
        const nested = {
          stAxis: { sId: 'Z', rPosition: 0.5, bEnabled: false, eMode: 12 },
          aValues: [7, 8, 9],
          aGrid: [
            [true, false],
            [false, true],
          ],
        };
        await roundTrip(
          'GVL_Test.stNested',
          { ...nested, stAxis: { ...nested.stAxis, eMode: 'eDone' } },
          nested,
        );
        await roundTrip('GVL_Test.stNested.aGrid[1,0]', true);
        assert.deepEqual(await read('GVL_Test.stNested.aGrid'), [
          [true, false],
          [true, true],
        ]);
        await refused('GVL_Test.stNested', { aGrid: [[true, false]] });
      });

      test('paths with indices: URL-encoded and literal brackets', async () => {
        await roundTrip('GVL_HMI.aAxes[3].rPosition', 12.5);
        const literal = await call('GET', '/api/plcs/sim1/variables/GVL_HMI.aAxes[3].rPosition');
        assert.equal(literal.json().data.value, 12.5);
        const encoded = await call('GET', '/api/plcs/sim1/variables/GVL_HMI.aAxes%5B3%5D.rPosition');
        assert.equal(encoded.json().data.value, 12.5);
        const whole = (await read('GVL_HMI.aAxes')) as Array<{ rPosition: number }>;
        assert.equal(whole.length, 4);
        assert.equal(whole[2]!.rPosition, 12.5);
      });
    });
  });
}
