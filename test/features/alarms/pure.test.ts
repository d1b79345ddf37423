// The pure cores of the alarm feature, by table: transitions per key, the TIMESTRUCT binding, the journal bound.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SnapshotDecoder } from '../../../src/features/alarms/decode-snapshot.ts';
import { AlarmJournal } from '../../../src/features/alarms/journal.ts';
import { isOutstanding, type AlarmReading } from '../../../src/features/alarms/reading.ts';
import { bindTime } from '../../../src/features/alarms/timestamps.ts';
import {
  diffStates,
  keyTransitions,
  stateOf,
  type Snapshot,
} from '../../../src/features/alarms/transitions.ts';

const at = (lastOccurred: string) => ({
  lastOccurred,
  plcTimestamp: lastOccurred,
  plcClock: 'Unspecified' as const,
});

function r(flags: string, time?: string, key = 'K'): AlarmReading {
  return {
    key,
    equipmentId: 'eq',
    errorCode: 1,
    severity: 2,
    severityLabel: 'WARNING',
    isActive: flags.includes('A'),
    needsAck: flags.includes('N'),
    isAcked: flags.includes('K'),
    slotIndex: 1,
    time: time === undefined ? undefined : at(time),
  };
}

const diffSnapshots = (before: Snapshot, after: Snapshot, fresh: boolean) =>
  diffStates(stateOf(before).outstanding, stateOf(after), fresh);

const kinds = (before: AlarmReading | undefined, after: AlarmReading | undefined) =>
  keyTransitions(before, after).map((t) => t.kind);

describe('transitions per key (A active, N needs ack, K acked)', () => {
  const t1 = '2024-01-01T00:00:00.000';
  const t2 = '2024-01-01T00:00:01.000';
  const cases: Array<[string, AlarmReading | undefined, AlarmReading | undefined, string[]]> = [
    ['appears active', undefined, r('AN', t1), ['raised']],
    ['appears passive (cleared before seen)', undefined, r('N', t1), ['raised']],
    ['appears ended', undefined, r('', t1), []],
    ['acknowledged while active', r('AN', t1), r('ANK', t1), ['acknowledged']],
    ['fault ends, awaits acknowledgement', r('AN', t1), r('N', t1), ['cleared']],
    ['fault ends, no acknowledgement needed', r('A', t1), r('', t1), ['ended']],
    ['fault ends after acknowledgement', r('ANK', t1), r('NK', t1), ['ended']],
    ['acknowledged while passive', r('N', t1), r('NK', t1), ['acknowledged', 'ended']],
    ['acknowledged and ended in one snapshot', r('AN', t1), r('NK', t1), ['acknowledged', 'ended']],
    ['fault returns while passive', r('N', t1), r('AN', t1), ['reoccurred']],
    ['timestamp advances while active', r('AN', t1), r('AN', t2), ['reoccurred']],
    ['timestamp goes back: nothing', r('AN', t2), r('AN', t1), []],
    ['no readable timestamp: a re-trigger is invisible', r('AN'), r('AN'), []],
    ['timestamp appears: not an advance', r('AN'), r('AN', t1), []],
    ['timestamp advances while passive: nothing', r('N', t1), r('N', t2), []],
    [
      'cleared and back in one snapshot, acknowledged',
      r('AN', t1),
      r('ANK', t2),
      ['acknowledged', 'reoccurred'],
    ],
    ['leaves the array while outstanding', r('AN', t1), undefined, ['ended']],
    ['leaves the array after it ended', r('', t1), undefined, []],
  ];
  for (const [name, before, after, expected] of cases) {
    test(name, () => assert.deepEqual(kinds(before, after), expected));
  }

  test('ended carries the last reading: the new one when the key is still there, else the old one', () => {
    const gone = r('AN', t1);
    assert.equal(keyTransitions(gone, undefined)[0]?.reading, gone);
    const ended = r('', t1);
    assert.equal(keyTransitions(r('A', t1), ended)[0]?.reading, ended);
  });

  test('a fresh snapshot raises everything outstanding and ends what is no longer outstanding', () => {
    const before = new Map([
      ['A', r('AN', t1, 'A')],
      ['B', r('AN', t1, 'B')],
    ]);
    const after = new Map([
      ['A', r('AN', t1, 'A')],
      ['B', r('K', t1, 'B')],
      ['C', r('N', t1, 'C')],
    ]);
    const fresh = diffSnapshots(before, after, true).map((t) => `${t.kind} ${t.reading.key}`);
    assert.deepEqual(fresh, ['ended B', 'raised A', 'raised C']);
    const steady = diffSnapshots(before, after, false).map((t) => `${t.kind} ${t.reading.key}`);
    assert.deepEqual(steady, ['acknowledged B', 'ended B', 'raised C']);
  });
});

describe('TIMESTRUCT binding', () => {
  const ts = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => ({
    wYear: y,
    wMonth: mo,
    wDayOfWeek: 3,
    wDay: d,
    wHour: h,
    wMinute: mi,
    wSecond: s,
    wMilliseconds: ms,
  });
  test('real dates, leap days and the clock offsets', () => {
    assert.deepEqual(bindTime(ts(2024, 2, 29, 23, 59, 59, 999), 'Utc'), {
      lastOccurred: '2024-02-29T23:59:59.999',
      plcTimestamp: '2024-02-29T23:59:59.999Z',
      plcClock: 'Utc',
    });
    assert.equal(
      (bindTime(ts(2000, 2, 29), 'Unspecified') as { plcTimestamp: string }).plcTimestamp,
      '2000-02-29T00:00:00.000',
    );
    const local = bindTime(ts(2024, 1, 15, 6), 'Local') as { plcTimestamp: string };
    assert.match(local.plcTimestamp, /^2024-01-15T06:00:00\.000[+-]\d\d:\d\d$/);
  });
  test('zeroed is zero; impossible dates are invalid', () => {
    assert.equal(bindTime({ ...ts(0, 0, 0), wDayOfWeek: 0 }, 'Utc'), 'zero');
    for (const t of [
      ts(2023, 2, 29),
      ts(1900, 2, 29),
      ts(2024, 4, 31),
      ts(2024, 13, 1),
      ts(2024, 0, 1),
      ts(0, 1, 1),
      ts(1600, 12, 31),
      ts(2024, 1, 0),
      ts(2024, 1, 1, 24),
      ts(2024, 1, 1, 0, 60),
      ts(2024, 1, 1, 0, 0, 60),
      ts(2024, 1, 1, 0, 0, 0, 1000),
    ]) {
      assert.equal(bindTime(t, 'Utc'), 'invalid', JSON.stringify(t));
    }
  });
});

describe('journal', () => {
  test('keeps the newest entries, numbers them from the start time in microseconds, knows what it holds', () => {
    const j = new AlarmJournal(3, 1_000);
    assert.equal(j.newest(), 1_000_000);
    assert.equal(j.holdsAfter(1_000_000), true);
    for (let i = 0; i < 5; i++) j.append({ at: '', kind: 'raised', reading: r('A', undefined, `K${i}`) });
    assert.deepEqual(
      j.readSince(undefined, 10).entries.map((e) => e.seq),
      [1_000_003, 1_000_004, 1_000_005],
    );
    assert.equal(j.holdsAfter(1_000_002), true);
    assert.equal(j.holdsAfter(1_000_001), false, 'entry 1_000_002 was dropped');
    assert.equal(j.holdsAfter(999_999), false, 'before this start');
    assert.equal(j.holdsAfter(1_000_006), false, 'not handed out yet');
    assert.deepEqual(
      j.readSince(1_000_001, 10).entries.map((e) => e.seq),
      [1_000_003, 1_000_004, 1_000_005],
    );
    assert.deepEqual(j.readSince(1_000_004, 10), {
      entries: [j.readSince(1_000_004, 1).entries[0]],
      nextAfter: 1_000_005,
    });
  });
});

describe('snapshot decoder, slot by slot', () => {
  /** The transitions of two whole snapshots, key by key in slot order (the rule the diff must keep). */
  function wholeDiff(before: Snapshot, after: Snapshot): string[] {
    const bySlot = (m: Snapshot) => [...m.values()].sort((a, b) => a.slotIndex - b.slotIndex);
    const out = bySlot(after).flatMap((a) => keyTransitions(before.get(a.key), a));
    out.push(...bySlot(before).flatMap((b) => (after.has(b.key) ? [] : keyTransitions(b, undefined))));
    return out.map((t) => `${t.kind} ${t.reading.key}@${t.reading.slotIndex}`);
  }

  test('changing a few slots at a time gives the state and transitions of decoding everything again', () => {
    let seed = 7;
    // mulberry32: a small seeded generator, so every run walks the same steps.
    const random = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    /** Per key, the slot that must stand for it: the most outstanding, then active, then the lowest index. */
    const standing = (slots: ReturnType<typeof slot>[]): Map<string, number> => {
      const best = new Map<string, { rank: number; slotIndex: number }>();
      slots.forEach((v, i) => {
        if (v.sKey === '') return;
        const rank = (v.IsActive || (v.NeedsAck && !v.IsAcked) ? 2 : 0) + (v.IsActive ? 1 : 0);
        const held = best.get(v.sKey);
        if (held === undefined || rank > held.rank) best.set(v.sKey, { rank, slotIndex: i + 1 });
      });
      return new Map([...best].map(([key, b]) => [key, b.slotIndex]));
    };
    const slot = () => ({
      sKey: ['', 'A', 'B', 'C', 'D', 'E'][random(6)] ?? '',
      Id: 'eq',
      ErrorCode: random(3),
      ErrorType: 2,
      IsActive: random(2) === 0,
      NeedsAck: random(2) === 0,
      IsAcked: random(3) === 0,
      PLCTimeStamp: {
        wYear: 2024,
        wMonth: 1,
        wDayOfWeek: 1,
        wDay: 1,
        wHour: 0,
        wMinute: 0,
        wSecond: random(3),
        wMilliseconds: 0,
      },
    });
    const type = 'ARRAY [1..12] OF ST_ErrorEntry';
    const decoder = new SnapshotDecoder('Unspecified');
    let value = Array.from({ length: 12 }, slot);
    let previous = stateOf(new Map());
    let before: Snapshot = new Map();
    for (let step = 0; step < 400; step++) {
      // Unchanged slots stay the same objects, as a subscription delivers them; now and then all are new.
      value = step % 50 === 49 ? value.map((v) => ({ ...v })) : [...value];
      for (let n = random(4); n > 0; n--) value[random(12)] = slot();
      const decoded = decoder.decode(value, type);
      const whole = new SnapshotDecoder('Unspecified').decode(value, type);
      assert.ok(decoded.ok && whole.ok);
      const sorted = (m: Snapshot) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
      assert.deepEqual(sorted(decoded.state.readings), sorted(whole.state.readings), `step ${step}`);
      assert.deepEqual(
        new Map([...decoded.state.readings].map(([key, r]) => [key, r.slotIndex])),
        standing(value),
        `step ${step}`,
      );
      assert.deepEqual(decoded.state.outstanding, whole.state.outstanding, `step ${step}`);
      assert.deepEqual(
        decoded.state.outstanding,
        [...whole.state.readings.values()].filter(isOutstanding).sort((a, b) => a.slotIndex - b.slotIndex),
      );
      const after = new Map(decoded.state.readings);
      assert.deepEqual(
        diffStates(previous.outstanding, decoded.state, false).map(
          (t) => `${t.kind} ${t.reading.key}@${t.reading.slotIndex}`,
        ),
        wholeDiff(before, after),
        `step ${step}`,
      );
      previous = decoded.state;
      before = after;
    }
  });
});
