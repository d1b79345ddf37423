// A replica's copy of a shared alarm journal, fed as the stream answers: it keeps exactly the newest JournalLength
// entries (as Redis's MAXLEN does), across the chunks it packs them in, and gives back each entry's text and
// acknowledging user unchanged, whatever characters they hold; its outstanding alarms outlive the entries that
// raised them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  JournalMirror,
  sharedEntry,
  type SharedEntry,
} from '../../../../src/features/alarms/cluster/journal-mirror.ts';

const epoch = 1_000_000;

/** A reading as the holder writes it. */
const reading = (key: string, slotIndex: number, isActive: boolean) => ({
  key,
  equipmentId: `eq-${key}`,
  errorCode: slotIndex + 100,
  severity: 2,
  severityLabel: 'ERROR',
  isActive,
  needsAck: false,
  isAcked: false,
  slotIndex,
  time: {
    lastOccurred: `2026-01-01T00:00:0${slotIndex}.000`,
    plcTimestamp: '-',
    plcClock: 'Utc' as const,
  },
});

/** An entry as the stream answers it, taken as a copy takes it. */
function streamEntry(seq: number, text: string, user?: string): SharedEntry {
  const body = JSON.stringify({
    at: '2026-01-01T00:00:00.000Z',
    kind: user === undefined ? 'raised' : 'acknowledged',
    reading: { ...reading(`K${seq}`, seq % 10, true), equipmentId: text },
  });
  return sharedEntry([
    `${seq}-0`,
    ['p', String(epoch), 'e', body, ...(user === undefined ? [] : ['u', user])],
  ]);
}

const seqs = (mirror: JournalMirror, after?: number) =>
  mirror.readSince(after, 1_000_000).entries.map((e) => e.seq);

describe("a replica's journal copy", () => {
  for (const capacity of [1, 3, 255, 256, 257, 1000]) {
    test(`JournalLength ${capacity}: the newest ${capacity} entries, and whether a cursor still resumes`, () => {
      const mirror = new JournalMirror(capacity, epoch / 1000);
      mirror.load({ epoch, outstanding: [], entries: [] }, epoch / 1000);
      const total = 4 * 256 + 7;
      for (let seq = epoch + 1; seq <= epoch + total; seq++)
        assert.equal(mirror.take([streamEntry(seq, 'x'.repeat(seq % 97))])?.length, 1);
      const newest = epoch + total;
      const kept = Array.from({ length: capacity }, (_, i) => newest - capacity + 1 + i);
      assert.deepEqual(seqs(mirror), kept);
      assert.equal(mirror.newest(), newest);
      assert.equal(mirror.holdsAfter(newest - capacity), true, 'the entry before the oldest kept');
      assert.equal(mirror.holdsAfter(newest - capacity - 1), false, 'one entry was dropped');
      for (const seq of mirror.readSince(undefined, capacity).entries.map((e) => e.seq))
        assert.equal(
          mirror.readSince(seq - 1, 1).entries[0]?.reading.key,
          `K${seq}`,
          'each entry is its own text',
        );
    });
  }

  test('entries and users come back unchanged: any Unicode, line breaks, NUL, an empty user', () => {
    const texts = ['Füllstand < 10 %', '温度过高', 'emoji 🚒 and \u0000 NUL', 'line\nbreak', ''];
    const users = ['operator-1', 'ö\n\u0000x', '', '🚒', undefined];
    const mirror = new JournalMirror(300, epoch / 1000);
    mirror.load({ epoch, outstanding: [], entries: [] }, epoch / 1000);
    const sent = Array.from({ length: 600 }, (_, i) =>
      streamEntry(epoch + 1 + i, texts[i % texts.length] as string, users[i % users.length]),
    );
    mirror.take(sent);
    const got = mirror.readSince(undefined, 1000).entries;
    assert.equal(got.length, 300);
    got.forEach((e, i) => {
      const k = 300 + i;
      assert.equal(e.seq, epoch + 1 + k);
      assert.equal(e.reading.equipmentId, texts[k % texts.length]);
      assert.equal(e.user, users[k % users.length]);
      assert.equal(e.kind, users[k % users.length] === undefined ? 'raised' : 'acknowledged');
    });
  });

  test('an entry already held is not taken twice; one past a gap restarts the copy after it', () => {
    const mirror = new JournalMirror(10, epoch / 1000);
    mirror.load({ epoch, outstanding: [], entries: [1, 2, 3].map((i) => streamEntry(epoch + i, 'a')) }, 0);
    assert.deepEqual(
      mirror.take([streamEntry(epoch + 3, 'a'), streamEntry(epoch + 4, 'b')])?.map((e) => e.seq),
      [epoch + 4],
    );
    mirror.take([streamEntry(epoch + 9, 'c')]);
    assert.deepEqual(seqs(mirror), [epoch + 9]);
    assert.equal(mirror.holdsAfter(epoch + 4), false);
  });

  test('outstanding alarms stay listed after the entries that raised them leave the copy, and past a gap', () => {
    const transition = (seq: number, kind: 'raised' | 'ended', key: string, slot: number): SharedEntry =>
      sharedEntry([
        `${epoch + seq}-0`,
        [
          'p',
          String(epoch),
          'e',
          JSON.stringify({
            at: '2026-01-01T00:00:00.000Z',
            kind,
            reading: reading(key, slot, kind === 'raised'),
          }),
        ],
      ]);
    const listed = (mirror: JournalMirror) => mirror.outstanding().map((r) => `${r.key}@${r.slotIndex}`);
    const mirror = new JournalMirror(3, epoch / 1000);
    // The stored snapshot's alarm S, then A raised, B raised and ended, C raised and ended: A's entry is dropped.
    mirror.load({ epoch, outstanding: [reading('S', 9, true)], entries: [] }, epoch / 1000);
    mirror.take([transition(1, 'raised', 'A', 0), transition(2, 'raised', 'B', 1)]);
    assert.deepEqual(listed(mirror), ['A@0', 'B@1', 'S@9']);
    mirror.take([
      transition(3, 'ended', 'B', 1),
      transition(4, 'raised', 'C', 2),
      transition(5, 'ended', 'C', 2),
      transition(6, 'raised', 'G', 5),
      transition(7, 'ended', 'G', 5),
    ]);
    assert.deepEqual(seqs(mirror), [epoch + 5, epoch + 6, epoch + 7], 'the entry that raised A is gone');
    assert.deepEqual(listed(mirror), ['A@0', 'S@9']);
    assert.deepEqual(mirror.reading('A'), reading('A', 0, true));
    // D after a gap restarts the copy: every entry before it is dropped, the outstanding alarms stay.
    mirror.take([transition(8, 'raised', 'E', 3), transition(20, 'raised', 'D', 4)]);
    assert.deepEqual(seqs(mirror), [epoch + 20]);
    assert.deepEqual(listed(mirror), ['A@0', 'E@3', 'D@4', 'S@9']);
    assert.deepEqual(mirror.reading('E'), reading('E', 3, true));
    mirror.take([transition(21, 'ended', 'A', 0), transition(22, 'ended', 'S', 9)]);
    assert.deepEqual(listed(mirror), ['E@3', 'D@4']);
    assert.equal(mirror.reading('A'), undefined);
  });

  test('entries not of the shape the holder writes are rejected, reported once each and moved past: never listed', () => {
    const valid = (seq: number, key: string) =>
      JSON.stringify({ at: '2026-01-01T00:00:00.000Z', kind: 'raised', reading: reading(key, 1, true) });
    const forged: Array<[string, string[]]> = [
      ['not JSON', ['p', String(epoch), 'e', '{"at": nope']],
      ['no key', ['p', String(epoch), 'e', valid(0, 'X').replace('"key":"X",', '')]],
      ['bad kind', ['p', String(epoch), 'e', valid(0, 'X').replace('"raised"', '"deleted"')]],
      ['severity text', ['p', String(epoch), 'e', valid(0, 'X').replace('"severity":2', '"severity":"2"')]],
      ['bad clock', ['p', String(epoch), 'e', valid(0, 'X').replace('"Utc"', '"Mars"')]],
      ['extra field', ['p', String(epoch), 'e', valid(0, 'X').replace('{"at"', '{"html":"<b>","at"')]],
      ['no epoch', ['e', valid(0, 'X')]],
      ['no entry', ['p', String(epoch)]],
      ['other epoch', ['p', String(epoch - 1), 'e', valid(0, 'X')]],
    ];
    const entries: SharedEntry[] = [
      sharedEntry([`${epoch + 1}-0`, ['p', String(epoch), 'e', valid(1, 'A')]]),
      ...forged.map(([, fields], i) => sharedEntry([`${epoch + 2 + i}-0`, fields])),
      sharedEntry([`${epoch + 11}-0`, ['p', String(epoch), 'e', valid(11, 'B')]]),
    ];
    const rejected: Array<[number, string]> = [];
    const mirror = new JournalMirror(20, epoch / 1000, (seq, reason) => rejected.push([seq, reason]));
    mirror.load({ epoch, outstanding: [], entries: [] }, 0);
    // An entry of another epoch asks for a reload first; Redis still holding this one, it is rejected.
    assert.equal(mirror.take(entries), undefined);
    assert.deepEqual(
      mirror.take(entries, 'reject')?.map((e) => e.reading.key),
      ['A', 'B'],
    );
    assert.deepEqual(
      rejected.map(([seq]) => seq),
      forged.map((_, i) => epoch + 2 + i),
    );
    assert.equal(rejected[0]?.[1], 'not JSON');
    assert.match(rejected[1]?.[1] ?? '', /^\/reading\/key /);
    assert.match(rejected[2]?.[1] ?? '', /^\/kind /);
    assert.match(rejected[3]?.[1] ?? '', /^\/reading\/severity /);
    assert.match(rejected[4]?.[1] ?? '', /^\/reading\/time\/plcClock /);
    assert.match(rejected[6]?.[1] ?? '', /epoch/);
    assert.match(rejected[7]?.[1] ?? '', /entry/);
    assert.match(rejected[8]?.[1] ?? '', /^epoch 999999 is not the journal's/);
    assert.deepEqual(seqs(mirror), [epoch + 1, epoch + 11]);
    assert.equal(mirror.newest(), epoch + 11, 'the cursor moves past the rejected entries');
    assert.deepEqual(
      mirror.readSince(epoch + 1, 1).entries.map((e) => e.seq),
      [epoch + 11],
    );
    assert.equal(mirror.holdsAfter(epoch + 1), true);
    assert.deepEqual(
      mirror.outstanding().map((r) => r.key),
      ['A', 'B'],
    );
    // Taken again (a stream read overlapping a push): nothing new, nothing reported twice.
    assert.deepEqual(mirror.take(entries, 'reject'), []);
    assert.equal(rejected.length, forged.length);
    // Loaded from the stored journal: the same entries are left out.
    const loaded = new JournalMirror(20, epoch / 1000, (seq) => rejected.push([seq, 'load']));
    loaded.load({ epoch, outstanding: [], entries }, 0);
    assert.deepEqual(seqs(loaded), [epoch + 1, epoch + 11]);
    assert.equal(rejected.length, 2 * forged.length);
  });
});
