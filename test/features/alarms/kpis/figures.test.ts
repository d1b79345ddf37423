// The KPI figures on a scripted journal with known answers (every figure), their edges, the EEMUA 191 rate
// reading, and what part of a window the journal and the history store cover.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AlarmArchive } from '../../../../src/features/alarms/archive.ts';
import type { AppError } from '../../../../src/errors.ts';
import {
  JournalMirror,
  sharedEntry,
  type SharedEntry,
} from '../../../../src/features/alarms/cluster/journal-mirror.ts';
import {
  AlarmJournal,
  type JournalEntry,
  type JournalReader,
} from '../../../../src/features/alarms/journal.ts';
import { AlarmKpis } from '../../../../src/features/alarms/kpis/service.ts';
import type { AlarmService } from '../../../../src/features/alarms/service.ts';
import { assessRate } from '../../../../src/features/alarms/kpis/benchmarks.ts';
import { computeKpis, percentile, type KpiTransition } from '../../../../src/features/alarms/kpis/figures.ts';
import { readArchive, readJournal } from '../../../../src/features/alarms/kpis/sources.ts';
import type { AlarmReading } from '../../../../src/features/alarms/reading.ts';
import type { TransitionKind } from '../../../../src/features/alarms/transitions.ts';

const T0 = Date.UTC(2026, 10, 1, 0, 0, 0);
const s = 1000;
const min = 60 * s;
const h = 60 * min;

const tr = (
  key: string,
  at: number,
  kind: TransitionKind,
  needsAck = false,
  isAcked = false,
): KpiTransition => ({
  plcId: 'line1',
  key,
  at: T0 + at,
  kind,
  needsAck,
  isAcked,
});

/** Raises of `key` at each offset, each ended `holdMs` later. */
const bursts = (key: string, offsets: number[], holdMs: number): KpiTransition[] =>
  offsets.flatMap((at) => [tr(key, at, 'raised'), tr(key, at + holdMs, 'ended')]);

/** A raise needing acknowledgement, acknowledged `after` ms later, ended a second after that. */
const acknowledged = (key: string, at: number, after: number): KpiTransition[] => [
  tr(key, at, 'raised', true),
  tr(key, at + after, 'acknowledged', true, true),
  tr(key, at + after + s, 'ended', true, true),
];

const range = (n: number, start: number, step: number): number[] =>
  Array.from({ length: n }, (_, k) => start + k * step);

/** 25 hours of one PLC's journal; each part is there for one figure, its known answer beside it. */
function scriptedJournal(): KpiTransition[] {
  return [
    // Chattering: 3 raises within 60 s (the last 1 ms inside the span).
    ...bursts('CHAT', [0, 20 * s, 60 * s - 1], 5 * s).slice(0, 5),
    tr('CHAT', 60 * s + 4 * s, 'ended'),
    // Not chattering: 3 raises spanning exactly 60 s.
    ...bursts('EDGE', [2 * min, 2 * min + 30 * s, 3 * min], s),
    // Period 2 (20-30 min): 11 raises, a flood; 55 s apart, never 3 within 60 s.
    ...bursts('FLOOD', range(11, 20 * min, 55 * s), 10 * s),
    // Period 3: 10 raises, not a flood.
    ...bursts('BUSY', range(10, 30 * min, 55 * s), 10 * s),
    // Standing at the end (24 h 10 min), and one outstanding exactly 24 h (not longer).
    tr('STAND', 50 * min, 'raised'),
    tr('NOTSTAND', h, 'raised'),
    // Time to acknowledge: 10, 20, 30, 40, 100 s, and 60 s from the raise across a reoccurrence.
    ...acknowledged('A1', 2 * h, 10 * s),
    ...acknowledged('A2', 3 * h, 20 * s),
    ...acknowledged('A3', 4 * h, 30 * s),
    ...acknowledged('A4', 5 * h, 40 * s),
    ...acknowledged('A5', 6 * h, 100 * s),
    tr('RE', 7 * h, 'raised', true),
    tr('RE', 7 * h + 5 * s, 'cleared', true),
    tr('RE', 7 * h + 10 * s, 'reoccurred', true),
    tr('RE', 7 * h + 60 * s, 'acknowledged', true, true),
    tr('RE', 7 * h + 61 * s, 'ended', true, true),
    // Raised before the window: acknowledged in it (no time to acknowledge), still outstanding: standing.
    tr('OLD', 8 * h, 'acknowledged', true, true),
    // Raised before the window and ended in it: not standing.
    tr('GONE', 9 * h, 'ended'),
  ].sort((a, b) => a.at - b.at);
}

describe('alarm KPI figures', () => {
  test('every figure of the scripted journal', () => {
    const figures = computeKpis({
      from: T0,
      to: T0 + 25 * h,
      transitions: scriptedJournal(),
      // CUR has no transition in the window: outstanding all of it. STAND's raise is in the window.
      outstandingAtEnd: [
        { plcId: 'line1', key: 'CUR' },
        { plcId: 'line1', key: 'STAND' },
      ],
    });
    // 3 + 3 + 11 + 10 + 1 + 1 + 5 + 2 (RE raised and reoccurred) raises over 150 periods.
    assert.deepEqual(figures.raised, {
      total: 36,
      periods: 150,
      per10Minutes: { average: 0.24, peak: 11, assessment: 'very likely acceptable' },
      floodPeriods: 1,
      floodShare: 0.0067,
    });
    assert.deepEqual(figures.standing, {
      count: 3,
      items: [
        { plcId: 'line1', key: 'CUR', outstandingSince: new Date(T0).toISOString(), sinceBeforeWindow: true },
        { plcId: 'line1', key: 'OLD', outstandingSince: new Date(T0).toISOString(), sinceBeforeWindow: true },
        {
          plcId: 'line1',
          key: 'STAND',
          outstandingSince: new Date(T0 + 50 * min).toISOString(),
          sinceBeforeWindow: false,
        },
      ],
    });
    assert.deepEqual(figures.chattering, {
      count: 1,
      items: [{ plcId: 'line1', key: 'CHAT', raises: 3, maxRaisesIn60s: 3 }],
    });
    const share = (n: number) => Math.round((n / 36) * 10_000) / 10_000;
    assert.deepEqual(figures.topKeys, {
      share: share(34),
      items: [
        ['FLOOD', 11],
        ['BUSY', 10],
        ['CHAT', 3],
        ['EDGE', 3],
        ['RE', 2],
        ['A1', 1],
        ['A2', 1],
        ['A3', 1],
        ['A4', 1],
        ['A5', 1],
      ].map(([key, raises]) => ({ plcId: 'line1', key, raises, share: share(raises as number) })),
    });
    // Nearest rank of [10, 20, 30, 40, 60, 100]: the 3rd and the 6th.
    assert.deepEqual(figures.timeToAcknowledge, { count: 6, p50Seconds: 30, p90Seconds: 100 });
  });

  test('flood: more than 10 raises in a period, not 10', () => {
    const of = (n: number) =>
      computeKpis({
        from: T0,
        to: T0 + 20 * min,
        transitions: bursts('K', range(n, 0, 55 * s), s),
        outstandingAtEnd: [],
      }).raised;
    assert.deepEqual([of(10).floodPeriods, of(10).floodShare, of(10).per10Minutes.peak], [0, 0, 10]);
    assert.deepEqual([of(11).floodPeriods, of(11).floodShare, of(11).per10Minutes.peak], [1, 0.5, 11]);
  });

  test('periods count from the window start; a shorter last one counts; an empty window has no average', () => {
    const raised = (to: number, offsets: number[]) =>
      computeKpis({ from: T0, to: T0 + to, transitions: bursts('K', offsets, 1), outstandingAtEnd: [] })
        .raised;
    assert.deepEqual(raised(15 * min, [0, 14 * min]), {
      total: 2,
      periods: 2,
      per10Minutes: { average: 1.3333, peak: 1, assessment: 'manageable' },
      floodPeriods: 0,
      floodShare: 0,
    });
    assert.deepEqual(raised(0, []), {
      total: 0,
      periods: 0,
      per10Minutes: { average: null, peak: 0, assessment: null },
      floodPeriods: 0,
      floodShare: null,
    });
    const none = computeKpis({ from: T0, to: T0 + h, transitions: [], outstandingAtEnd: [] });
    assert.equal(none.topKeys.share, null);
    assert.deepEqual(none.timeToAcknowledge, { count: 0, p50Seconds: null, p90Seconds: null });
  });

  test('keys of different PLCs are apart; the lists stop at 10', () => {
    const transitions = range(12, 0, 2 * s).flatMap((at, i) => [
      { ...tr(`K${String(i).padStart(2, '0')}`, at, 'raised'), plcId: 'a' },
      { ...tr(`K${String(i).padStart(2, '0')}`, at + s, 'raised'), plcId: 'b' },
    ]);
    const figures = computeKpis({ from: T0, to: T0 + 25 * h, transitions, outstandingAtEnd: [] });
    assert.equal(figures.raised.total, 24);
    assert.equal(figures.standing.count, 24);
    assert.equal(figures.standing.items.length, 10);
    assert.deepEqual(
      figures.topKeys.items.slice(0, 3).map((k) => [k.plcId, k.key, k.raises]),
      [
        ['a', 'K00', 1],
        ['a', 'K01', 1],
        ['a', 'K02', 1],
      ],
    );
    assert.equal(figures.topKeys.share, 0.4167);
  });

  test('nearest-rank percentiles', () => {
    assert.equal(percentile([7], 50), 7);
    assert.equal(percentile([7], 90), 7);
    assert.equal(percentile([1, 2], 50), 1);
    assert.equal(percentile([1, 2], 90), 2);
    assert.equal(percentile(range(10, 1, 1), 90), 9);
    assert.equal(percentile(range(11, 1, 1), 90), 10);
  });

  test('EEMUA 191 reading of the average per 10 minutes', () => {
    assert.deepEqual([0, 1, 1.01, 2, 2.01, 9.99, 10, 30].map(assessRate), [
      'very likely acceptable',
      'very likely acceptable',
      'manageable',
      'manageable',
      'likely over-demanding',
      'likely over-demanding',
      'very likely unacceptable',
      'very likely unacceptable',
    ]);
  });
});

function reading(key: string): AlarmReading {
  return {
    key,
    equipmentId: 'eq',
    errorCode: 1,
    severity: 2,
    severityLabel: 'WARNING',
    isActive: true,
    needsAck: false,
    isAcked: false,
    slotIndex: 1,
    time: undefined,
  };
}

describe('what a KPI window covers', () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  test('the journal: since its start while nothing was dropped, else since its oldest entry', () => {
    const journal = new AlarmJournal(3, T0);
    const keys = (entries: readonly JournalEntry[]) => entries.map((e) => e.reading.key);
    assert.equal(journal.heldSince(), T0);
    for (const k of [1, 2, 3])
      journal.append({ at: iso(T0 + k * min), kind: 'raised', reading: reading(`K${k}`) });
    const whole = readJournal(journal, { from: T0 - h, to: T0 + h }, { max: 100 });
    assert.deepEqual(
      [whole.source, whole.from, whole.to, whole.limitedBy],
      ['journal', T0, T0 + h, 'journal'],
    );
    assert.deepEqual(keys(whole.entries), ['K1', 'K2', 'K3']);
    const inside = readJournal(journal, { from: T0 + 2 * min, to: T0 + 3 * min }, { max: 100 });
    assert.deepEqual([inside.from, inside.to, inside.limitedBy], [T0 + 2 * min, T0 + 3 * min, undefined]);
    assert.deepEqual(keys(inside.entries), ['K2']);
    journal.append({ at: iso(T0 + 4 * min), kind: 'raised', reading: reading('K4') });
    assert.equal(journal.heldSince(), T0 + 2 * min, 'K1 was dropped');
    const after = readJournal(journal, { from: T0, to: T0 + h }, { max: 100 });
    assert.deepEqual([after.from, after.limitedBy], [T0 + 2 * min, 'journal']);
    assert.deepEqual(keys(after.entries), ['K2', 'K3', 'K4']);
  });

  test('MaxTransitions: N entries are read whole; with N + 1 the window ends at the first left out', () => {
    const journal = new AlarmJournal(10, T0);
    for (const k of [1, 2, 3])
      journal.append({ at: iso(T0 + k * min), kind: 'raised', reading: reading(`K${k}`) });
    const three = readJournal(journal, { from: T0, to: T0 + h }, { max: 3 });
    assert.deepEqual([three.entries.length, three.to, three.limitedBy], [3, T0 + h, undefined]);
    const two = readJournal(journal, { from: T0, to: T0 + h }, { max: 2 });
    assert.deepEqual([two.entries.length, two.to, two.limitedBy], [2, T0 + 3 * min, 'maxTransitions']);
  });

  test('the history store: pages through the window, no further back than retention', async () => {
    const stored: JournalEntry[] = Array.from({ length: 2500 }, (_, i) => ({
      seq: i + 1,
      at: iso(T0 + i * s),
      kind: 'raised',
      reading: reading(`K${i}`),
    }));
    const calls: number[] = [];
    const archive: AlarmArchive = {
      read: (plcId, from, to, after, limit) => {
        calls.push(limit);
        assert.equal(plcId, 'line1');
        return Promise.resolve(
          stored
            .filter((e) => Date.parse(e.at) >= from && Date.parse(e.at) < to && e.seq > after)
            .slice(0, limit),
        );
      },
    };
    const all = await readArchive(
      archive,
      'line1',
      { from: T0, to: T0 + h },
      { max: 10_000, retainedSince: 0 },
    );
    assert.deepEqual(
      [all.source, all.entries.length, all.from, all.to, all.limitedBy],
      ['history', 2500, T0, T0 + h, undefined],
    );
    assert.deepEqual(calls, [1000, 1000, 1000]);
    const retained = await readArchive(
      archive,
      'line1',
      { from: T0, to: T0 + h },
      { max: 10_000, retainedSince: T0 + 100 * s },
    );
    assert.deepEqual(
      [retained.entries.length, retained.from, retained.limitedBy],
      [2400, T0 + 100 * s, 'retention'],
    );
    const cut = await readArchive(
      archive,
      'line1',
      { from: T0, to: T0 + h },
      { max: 1000, retainedSince: 0 },
    );
    assert.deepEqual([cut.entries.length, cut.to, cut.limitedBy], [1000, T0 + 1000 * s, 'maxTransitions']);
  });
});

describe('what a replica’s copy of the shared journal covers', () => {
  const epoch = Date.UTC(2026, 10, 1) * 1000;
  const shared = (seq: number, at: number): SharedEntry =>
    sharedEntry([
      `${seq}-0`,
      [
        'p',
        String(epoch),
        'e',
        JSON.stringify({ at: new Date(at).toISOString(), kind: 'raised', reading: reading(`K${seq}`) }),
      ],
    ]);

  test('nothing before the shared journal starts; its start while whole; its oldest entry once trimmed', () => {
    const mirror = new JournalMirror(2, T0);
    assert.equal(mirror.heldSince(), undefined);
    const none = readJournal(mirror, { from: T0 - h, to: T0 + h }, { max: 100 });
    assert.deepEqual([none.from, none.to, none.entries.length], [T0 + h, T0 + h, 0]);
    mirror.load({ epoch, outstanding: [], entries: [] }, T0);
    assert.equal(mirror.heldSince(), epoch / 1000);
    mirror.take([shared(epoch + 1, T0 + min), shared(epoch + 2, T0 + 2 * min)]);
    assert.equal(mirror.heldSince(), epoch / 1000);
    mirror.take([shared(epoch + 3, T0 + 3 * min)]);
    assert.equal(mirror.heldSince(), T0 + 2 * min);
    const read = readJournal(mirror, { from: T0 - h, to: T0 + h }, { max: 100 });
    assert.deepEqual([read.from, read.limitedBy, read.entries.length], [T0 + 2 * min, 'journal', 2]);
  });
});

describe('reading a window of a long journal', () => {
  test('parses the window’s entries and a few to find it, not every entry before it', () => {
    const journal = new AlarmJournal(5000, T0);
    for (let i = 0; i < 5000; i++)
      journal.append({ at: new Date(T0 + i * s).toISOString(), kind: 'raised', reading: reading(`K${i}`) });
    let parsed = 0;
    const counting = {
      newest: () => journal.newest(),
      holdsAfter: (seq: number) => journal.holdsAfter(seq),
      heldSince: () => journal.heldSince(),
      readSince: (after: number | undefined, limit: number) => {
        const page = journal.readSince(after, limit);
        parsed += page.entries.length;
        return page;
      },
    };
    for (const [from, to, expected] of [
      [T0 + 4990 * s, T0 + 5000 * s, 10],
      [T0, T0 + 10 * s, 10],
      [T0 + 2500 * s, T0 + 2500 * s + 1, 1],
      [T0 + 6000 * s, T0 + 7000 * s, 0],
    ] as const) {
      parsed = 0;
      const read = readJournal(counting, { from, to }, { max: 100 });
      assert.deepEqual(
        read.entries.map((e) => Date.parse(e.at)),
        Array.from({ length: expected }, (_, i) => from + i * s),
      );
      assert.ok(parsed <= 1000 + 2 * 14, `${parsed} entries parsed for [${from}, ${to})`);
    }
  });
});

describe('the fleet window', () => {
  test('a PLC whose journal covers nothing yet does not narrow the others’ window', async () => {
    const busy = new AlarmJournal(100, T0);
    busy.append({ at: new Date(T0 + min).toISOString(), kind: 'raised', reading: reading('B1') });
    const unstarted = new JournalMirror(100, T0);
    const journals = new Map<string, JournalReader>([
      ['busy', busy],
      ['quiet', unstarted],
    ]);
    const alarms = {
      monitor: (plcId: string) => ({ plcId, journal: journals.get(plcId), outstanding: () => [] }),
      view: () => ({ counts: { shelved: 0, outOfService: 0, suppressed: 0 } }),
    } as unknown as AlarmService;
    const kpis = new AlarmKpis({
      alarms,
      settings: {
        DefaultWindowHours: 24,
        MaxWindowDays: 31,
        MaxTransitions: 1000,
        MaxFleetTransitions: 1_000_000,
        MaxConcurrent: 2,
      },
      retentionDays: 30,
      now: () => T0 + h,
      archive: () => undefined,
    });
    const fleet = await kpis.fleet(['busy', 'quiet'], {});
    assert.deepEqual(
      fleet.plcs.map((p) => [p.plcId, p.covered.from, p.covered.to]),
      [
        ['busy', new Date(T0).toISOString(), new Date(T0 + h).toISOString()],
        ['quiet', new Date(T0 + h).toISOString(), new Date(T0 + h).toISOString()],
      ],
    );
    assert.deepEqual(fleet.covered, { from: new Date(T0).toISOString(), to: new Date(T0 + h).toISOString() });
    assert.equal(fleet.figures.raised.total, 1);
  });
});

describe('the bounds of one KPI answer (PlcAlarms.Kpis.MaxFleetTransitions, MaxConcurrent)', () => {
  const settings = {
    DefaultWindowHours: 24,
    MaxWindowDays: 31,
    MaxTransitions: 1000,
    MaxFleetTransitions: 10,
    MaxConcurrent: 2,
  };
  const alarmsOf = (journals: Map<string, JournalReader>): AlarmService =>
    ({
      monitor: (plcId: string) => ({ plcId, journal: journals.get(plcId), outstanding: () => [] }),
      view: () => ({ counts: { shelved: 0, outOfService: 0, suppressed: 0 } }),
    }) as unknown as AlarmService;
  /** Two PLCs with `each` raises, a minute apart. */
  const twoPlcs = (each: number): Map<string, JournalReader> => {
    const journals = new Map<string, JournalReader>();
    for (const id of ['a', 'b']) {
      const j = new AlarmJournal(1000, T0);
      for (let i = 0; i < each; i++) {
        j.append({
          at: new Date(T0 + (i + 1) * min).toISOString(),
          kind: 'raised',
          reading: reading(`${id}${i}`),
        });
      }
      journals.set(id, j);
    }
    return journals;
  };

  test('the fleet shares MaxFleetTransitions evenly: N per PLC read whole, N + 1 cut where its share ends', async () => {
    const at = T0 + h;
    const answer = async (each: number, fleetMax: number) =>
      new AlarmKpis({
        alarms: alarmsOf(twoPlcs(each)),
        settings: { ...settings, MaxFleetTransitions: fleetMax },
        retentionDays: 30,
        now: () => at,
        archive: () => undefined,
      }).fleet(['a', 'b'], { from: new Date(T0).toISOString() });
    // 10 for two PLCs: 5 each. Five raises each fit.
    const whole = await answer(5, 10);
    assert.deepEqual(
      whole.plcs.map((p) => [p.figures.raised.total, p.limitedBy]),
      [
        [5, undefined],
        [5, undefined],
      ],
    );
    assert.equal(whole.figures.raised.total, 10);
    // Six each: each PLC's answer stops at its share, the window ending at the sixth raise.
    const cut = await answer(6, 10);
    assert.deepEqual(
      cut.plcs.map((p) => [p.figures.raised.total, p.limitedBy, p.covered.to]),
      [
        [5, 'maxTransitions', new Date(T0 + 6 * min).toISOString()],
        [5, 'maxTransitions', new Date(T0 + 6 * min).toISOString()],
      ],
    );
    assert.equal(cut.figures.raised.total, 10);
    // One PLC alone may read its MaxTransitions, not more than the fleet total.
    const single = await new AlarmKpis({
      alarms: alarmsOf(twoPlcs(6)),
      settings: { ...settings, MaxFleetTransitions: 10 },
      retentionDays: 30,
      now: () => at,
      archive: () => undefined,
    }).fleet(['a'], { from: new Date(T0).toISOString() });
    assert.equal(single.figures.raised.total, 6);
  });

  test('MaxConcurrent answers at once: N run, N + 1 is 429 CONCURRENCY_LIMIT, a place freed is taken again', async () => {
    const held: Array<() => void> = [];
    const archive: AlarmArchive = {
      read: () =>
        new Promise((resolve) => {
          held.push(() => resolve([]));
        }),
    };
    const kpis = new AlarmKpis({
      alarms: alarmsOf(twoPlcs(0)),
      settings,
      retentionDays: 30,
      now: () => T0 + h,
      archive: () => archive,
    });
    const first = kpis.plc('a', {});
    const second = kpis.fleet(['a', 'b'], {});
    await assert.rejects(kpis.plc('b', {}), (err: AppError) => {
      assert.equal(err.code, 'CONCURRENCY_LIMIT');
      assert.equal(err.status, 429);
      assert.match(err.message, /PlcAlarms\.Kpis\.MaxConcurrent/);
      return true;
    });
    await assert.rejects(kpis.fleet(['a'], {}), /MaxConcurrent/);
    held.shift()?.();
    await first;
    // The place it freed is taken again.
    const third = kpis.plc('b', {});
    let settled = false;
    const all = Promise.all([second, third]).then(() => {
      settled = true;
    });
    // The fleet answer reads its PLCs one after the other: each read is let through as it comes.
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const release of held.splice(0)) release();
    }
    await all;
  });
});
