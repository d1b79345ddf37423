// Recording into SQLite on a real file through the real app: PLC timestamps, buckets that keep a spike, 64-bit
// values exactly, deadband and MaxIntervalSeconds, `[*]` paths, gaps while the PLC is down, a restart.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ConfigError } from '../../../src/config/schema.ts';
import {
  historyProgram,
  historyUrl,
  iso,
  seriesOf,
  startHistoryRig,
  t0,
  untilSamples,
  type HistoryRig,
} from './fixture.ts';

let rig: HistoryRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('history recording (SQLite)', () => {
  it('stamps each sample with the PLC notification time', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp' }] });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    await rig.write('MAIN.fTemp', 21.5, t0 + 1234);
    const s = await untilSamples(rig, 'MAIN.fTemp', 2);
    assert.deepEqual(s.samples, [
      { t: iso(t0), value: 20 },
      { t: iso(t0 + 1234), value: 21.5 },
    ]);
    assert.equal(s.kind, 'number');
    assert.equal(s.type, 'LREAL');
  });

  it('keeps a one-sample spike in the min and max of its bucket', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp' }] });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    for (let i = 1; i <= 100; i++) await rig.write('MAIN.fTemp', i === 57 ? 999 : 20 + (i % 2), t0 + i * 100);
    await untilSamples(rig, 'MAIN.fTemp', 101);
    // Buckets a second or wider start on whole seconds: 10.1 s in at most 10 buckets is 6 of 2 s.
    const [s] = await seriesOf(rig, historyUrl(['MAIN.fTemp'], t0, t0 + 10_100, { maxPoints: 10 }));
    assert.equal(s?.bucketMs, 2000);
    assert.equal(s?.buckets?.length, 6);
    const spike = s?.buckets?.find((b) => b.max === 999);
    assert.ok(spike, 'the spike survives downsampling');
    assert.equal(spike.t, iso(t0 + 4000));
    assert.equal(spike.min, 20);
    assert.equal(
      s?.buckets?.reduce((n, b) => n + b.count, 0),
      101,
    );
    // t0 .. t0+1900: the initial 20, then 21, 20, ... (twenty samples, the last one 21).
    assert.deepEqual(s?.buckets?.[0], { t: iso(t0), min: 20, max: 21, first: 20, last: 21, count: 20 });
    // The last bucket ends past the whole seconds: t0+10000 comes from the raw samples.
    assert.deepEqual(s?.buckets?.[5], {
      t: iso(t0 + 10_000),
      min: 20,
      max: 20,
      first: 20,
      last: 20,
      count: 1,
    });
    // A window off the whole seconds: partial seconds at both ends from the raw samples, the same answer.
    const [off] = await seriesOf(rig, historyUrl(['MAIN.fTemp'], t0 + 50, t0 + 9_950, { maxPoints: 5 }));
    assert.equal(off?.bucketMs, 2000);
    assert.deepEqual(off?.buckets?.[0], { t: iso(t0), min: 20, max: 21, first: 21, last: 21, count: 19 });
    assert.equal(
      off?.buckets?.reduce((n, b) => n + b.count, 0),
      99,
    );
    assert.deepEqual(off?.buckets?.[4], {
      t: iso(t0 + 8000),
      min: 20,
      max: 21,
      first: 20,
      last: 21,
      count: 20,
    });
  });

  it('stores 64-bit integers exactly, signed and unsigned, raw and in buckets', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.nBig' }, { Path: 'MAIN.uBig' }] });
    await untilSamples(rig, 'MAIN.uBig', 1);
    await rig.write('MAIN.nBig', '-9223372036854775807', t0 + 10);
    await rig.write('MAIN.nBig', '9007199254740993', t0 + 20);
    await rig.write('MAIN.uBig', '18446744073709551615', t0 + 10);
    await rig.write('MAIN.uBig', '9223372036854775809', t0 + 20);
    const n = await untilSamples(rig, 'MAIN.nBig', 3);
    const u = await untilSamples(rig, 'MAIN.uBig', 3);
    assert.deepEqual(
      n.samples?.map((x) => x.value),
      ['0', '-9223372036854775807', '9007199254740993'],
    );
    assert.deepEqual(
      u.samples?.map((x) => x.value),
      ['0', '18446744073709551615', '9223372036854775809'],
    );
    const [nb, ub] = await seriesOf(
      rig,
      historyUrl(['MAIN.nBig', 'MAIN.uBig'], t0, t0 + 1000, { maxPoints: 1 }),
    );
    assert.deepEqual(nb?.buckets, [
      {
        t: iso(t0),
        min: '-9223372036854775807',
        max: '9007199254740993',
        first: '0',
        last: '9007199254740993',
        count: 3,
      },
    ]);
    assert.equal(ub?.kind, 'uint64');
    assert.equal(ub?.buckets?.[0]?.max, '18446744073709551615');
    assert.equal(ub?.buckets?.[0]?.min, '0');
  });

  it('skips changes inside the deadband (at its edge: equal is recorded)', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp', Deadband: 0.5 }] });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    await rig.write('MAIN.fTemp', 20.4, t0 + 1); // 0.4 from 20: skipped
    await rig.write('MAIN.fTemp', 20.5, t0 + 2); // 0.5 from 20: recorded
    await rig.write('MAIN.fTemp', 20.9, t0 + 3); // 0.4 from 20.5: skipped
    await rig.write('MAIN.fTemp', 19.9, t0 + 4); // 0.6 from 20.5: recorded
    const s = await untilSamples(rig, 'MAIN.fTemp', 3);
    // A later sample proves nothing else was waiting.
    await rig.write('MAIN.fTemp', 30, t0 + 5);
    const all = await untilSamples(rig, 'MAIN.fTemp', 4);
    assert.deepEqual(
      all.samples?.map((x) => x.value),
      [20, 20.5, 19.9, 30],
    );
    assert.equal(s.samples?.length, 3);
  });

  it('records a quiet value again after MaxIntervalSeconds (not before)', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp', MaxIntervalSeconds: 2 }] });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    rig.gatewayTime = t0 + 1999;
    // Nothing is due yet: a change written afterwards is the next sample.
    await rig.write('MAIN.fTemp', 25, t0 + 1999);
    await untilSamples(rig, 'MAIN.fTemp', 2);
    rig.gatewayTime = t0 + 1999 + 2000;
    const s = await untilSamples(rig, 'MAIN.fTemp', 3);
    assert.deepEqual(s.samples?.[2], { t: iso(t0 + 3999), value: 25 });
  });

  it('records every index of a `[*]` path', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'GVL_HMI.aAxes[*].rPosition' }] });
    await rig.write('GVL_HMI.aAxes[2].rPosition', 12.5, t0 + 5);
    const s = await untilSamples(rig, 'GVL_HMI.aAxes[2].rPosition', 2);
    assert.deepEqual(s.samples?.[1], { t: iso(t0 + 5), value: 12.5 });
    const res = await rig.get('/api/plcs/line1/history/symbols');
    assert.equal(res.statusCode, 200);
    const items = res.json<{ data: { items: Array<{ symbol: string; settings: unknown }> } }>().data.items;
    assert.deepEqual(
      items.map((i) => i.symbol),
      ['GVL_HMI.aAxes[0].rPosition', 'GVL_HMI.aAxes[1].rPosition', 'GVL_HMI.aAxes[2].rPosition'],
    );
  });

  it('records BOOL and strings as their changes', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.bOn' }, { Path: 'MAIN.sText' }] });
    await rig.write('MAIN.bOn', true, t0 + 1);
    await rig.write('MAIN.sText', 'run, "fast"', t0 + 2);
    await untilSamples(rig, 'MAIN.bOn', 2);
    await untilSamples(rig, 'MAIN.sText', 2);
    const [b, s] = await seriesOf(rig, historyUrl(['MAIN.bOn', 'MAIN.sText'], t0, t0 + 1000));
    assert.equal(b?.buckets, undefined);
    assert.deepEqual(b?.samples, [
      { t: iso(t0), value: false },
      { t: iso(t0 + 1), value: true },
    ]);
    assert.deepEqual(s?.samples?.[1], { t: iso(t0 + 2), value: 'run, "fast"' });
  });

  it('marks the interval while the PLC is down as a gap, and records again after', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp' }] });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    rig.gatewayTime = t0 + 1000;
    rig.target.disconnect();
    const url = historyUrl(['MAIN.fTemp'], t0, t0 + 10_000);
    await rig.until(async () => (await seriesOf(rig!, url))[0]?.gaps.length === 1, 'an open gap');
    assert.deepEqual((await seriesOf(rig, url))[0]?.gaps, [
      { from: iso(t0 + 1000), to: null, reason: 'unreachable' },
    ]);
    rig.gatewayTime = t0 + 5000;
    rig.plcTime = t0 + 5000;
    rig.target.reconnect();
    // The value is recorded again once the link is back, so the trend resumes after the break.
    await untilSamples(rig, 'MAIN.fTemp', 2);
    await rig.until(async () => (await seriesOf(rig!, url))[0]?.gaps[0]?.to !== null, 'the gap closed');
    const [s] = await seriesOf(rig, url);
    assert.deepEqual(s?.gaps, [{ from: iso(t0 + 1000), to: iso(t0 + 5000), reason: 'unreachable' }]);
  });

  it('keeps the history over a restart, and flushes what is buffered on shutdown', async () => {
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.nCount' }], history: { FlushIntervalMs: 1000 } });
    await untilSamples(rig, 'MAIN.nCount', 1);
    await rig.write('MAIN.nCount', 7, t0 + 10);
    // Straight to shutdown: the sample is still in the buffer (the flush interval is a second).
    await rig.closeApp();
    await rig.restart();
    const s = await untilSamples(rig, 'MAIN.nCount', 2);
    assert.deepEqual(s.samples?.[1], { t: iso(t0 + 10), value: 7 });
  });

  it('refuses to start with every unknown or composite symbol listed', async () => {
    await assert.rejects(
      startHistoryRig({
        symbols: [
          { Path: 'MAIN.nope' },
          { Path: 'MAIN.fTemp' },
          { Path: 'GVL_HMI.aAxes' },
          { Path: 'X[*].y' },
        ],
      }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(err.problems, [
          "History.Targets.line1.Symbols: 'MAIN.nope': no such symbol",
          "History.Targets.line1.Symbols: 'GVL_HMI.aAxes': GVL_HMI.aAxes is a struct or array; record its members instead",
          "History.Targets.line1.Symbols: 'X[*].y': no such symbol",
        ]);
        return true;
      },
    );
  });

  it('records a symbol a download retyped on in its new type', async () => {
    const logs: Array<Record<string, unknown>> = [];
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.nCount' }], logs });
    const before = await untilSamples(rig, 'MAIN.nCount', 1);
    assert.equal(before.type, 'DINT');
    rig.plcTime = t0 + 100;
    rig.plc.load(historyProgram({ retypedCount: true }));
    const s = await untilSamples(rig, 'MAIN.nCount', 2);
    assert.deepEqual(s.samples, [
      { t: iso(t0), value: 0 },
      { t: iso(t0 + 100), value: 2.5 },
    ]);
    assert.equal(s.type, 'LREAL');
    const note = logs.find(
      (l) => l.msg === 'recorded symbol changed type in a program change; recorded on in the new type',
    );
    assert.deepEqual([note?.symbol, note?.type, note?.previousType], ['MAIN.nCount', 'LREAL', 'DINT']);
    assert.equal(
      logs.some((l) => l.msg === 'recorded symbol vanished; recorded again when it returns'),
      false,
    );
  });

  it('logs a symbol that vanished with a download and records it again when it returns', async () => {
    const logs: Array<Record<string, unknown>> = [];
    rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp' }, { Path: 'MAIN.nCount' }], logs });
    await untilSamples(rig, 'MAIN.fTemp', 1);
    rig.plc.load(historyProgram({ withTemp: false }));
    await rig.until(
      () =>
        Promise.resolve(
          logs.some((l) => l.msg === 'recorded symbol vanished; recorded again when it returns'),
        ),
      'the vanished symbol logged',
    );
    assert.equal(logs.find((l) => l.symbol === 'MAIN.fTemp' && l.code)?.code, 'SYMBOL_INVALIDATED');
    rig.plcTime = t0 + 100;
    rig.plc.load(historyProgram());
    // Retried after five seconds of the gateway clock: then its value (20 again) is recorded anew.
    rig.gatewayTime = t0 + 5000;
    const s = await untilSamples(rig, 'MAIN.fTemp', 2);
    assert.deepEqual(s.samples?.[1], { t: iso(t0 + 100), value: 20 });
  });
});
