// What the append script publishes for the other replicas, run in a real Redis: the frames a replica decodes hold
// exactly the entries the stream holds (seq, epoch, JSON and acknowledging user, whatever characters they have),
// for every part of a round and only for parts that appended; anything else on the channel is refused whole.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { decodeAlarmPush } from '../../../../src/features/alarms/cluster/alarm-push.ts';
import { entryText } from '../../../../src/features/alarms/journal.ts';
import {
  ackKey,
  alarmKeys,
  alarmPushChannel,
  appendTransitions,
} from '../../../../src/features/alarms/cluster/alarm-scripts.ts';
import { sharedEntry, type StreamEntry } from '../../../../src/features/alarms/cluster/journal-mirror.ts';
import { RedisServer } from '../../../helpers/redis-server.ts';

const epoch = 1_780_000_000_000_000;

/** One part of a round: the PLC's keys and arguments, its entries acknowledged when a user is given. */
function part(plcId: string, lease: string, entries: Array<{ json: string; ackKey?: string }>) {
  const keys = alarmKeys(plcId);
  return {
    keys: [keys.lease, keys.state, keys.journal, ...entries.map((e) => e.ackKey ?? ackKey(plcId, 'none'))],
    args: [
      lease,
      100,
      epoch,
      '[]',
      entries.length,
      ...entries.flatMap((e) => [e.json, e.ackKey ? '1' : '0']),
    ],
  };
}

describe('alarm journal pushes: the append script frames what it appended', () => {
  let server: RedisServer;
  let redis: Redis;
  let subscriber: Redis;

  before(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
    subscriber = new Redis(server.url);
    await subscriber.subscribe(alarmPushChannel);
  });

  after(async () => {
    redis.disconnect();
    subscriber.disconnect();
    await server.kill();
  });

  test('every appended entry, user and character reaches the push as the stream holds it', async () => {
    const users = ['operator', '', 'Jörg 👷 a:1\0b\n', '12:34'];
    const json = (i: number) =>
      JSON.stringify({
        at: '2026-11-27T00:00:00.000Z',
        kind: 'acknowledged',
        reading: { key: `é:${i}\u2028"` },
      });
    await redis.set(alarmKeys('a').lease, '1|r1');
    await redis.set(alarmKeys('b').lease, '2|r1');
    await redis.set(alarmKeys('fenced').lease, '3|other');
    for (const [i, user] of users.entries()) await redis.set(ackKey('a', `k${i}`), user);
    const parts = [
      part('a', '1|r1', [
        ...users.map((_, i) => ({ json: json(i), ackKey: ackKey('a', `k${i}`) })),
        { json: json(9), ackKey: ackKey('a', 'unclaimed') },
      ]),
      part('fenced', '3|r1', [{ json: json(0) }]),
      part('b', '2|r1', [{ json: json(1) }]),
      part('b', '2|r1', []),
      part('b', '2|r1', [{ json: json(2) }, { json: json(3) }]),
    ];
    const message = once(subscriber, 'messageBuffer') as Promise<[Buffer, Buffer]>;
    const answer = (await redis.eval(
      appendTransitions.lua,
      parts.reduce((n, p) => n + p.keys.length, 0),
      ...parts.flatMap((p) => p.keys),
      alarmPushChannel,
      parts.length,
      ...parts.flatMap((p) => p.args),
    )) as unknown[];
    assert.deepEqual(
      answer.slice(0, 5).map((a) => (a as unknown[])[0]),
      [1, 0, 1, 1, 1],
    );
    const [, pushedBytes] = await message;
    const pushed = decodeAlarmPush(pushedBytes);
    assert.ok(pushed !== undefined);
    const stored = async (plcId: string) =>
      ((await redis.xrange(alarmKeys(plcId).journal, '-', '+')) as StreamEntry[]).map(sharedEntry);
    // The fenced part and the empty one push nothing; b's two appends in one round come one after the other.
    assert.deepEqual([...pushed.keys()], [alarmKeys('a').journal, alarmKeys('b').journal]);
    const a = await stored('a');
    assert.equal(a.length, users.length + 1);
    assert.deepEqual(pushed.get(alarmKeys('a').journal), a);
    assert.deepEqual(
      a.map((e) => e.seq),
      [1, 2, 3, 4, 5].map((i) => epoch + i),
    );
    const b = await stored('b');
    assert.equal(b.length, 3);
    assert.deepEqual(pushed.get(alarmKeys('b').journal), b);
    assert.equal(await redis.exists(alarmKeys('fenced').journal), 0);
  });

  test('a message not made of whole frames is refused, not taken in part', () => {
    // Key, count, then seq, epoch, user ('u' and the user: here ':') and JSON per entry.
    const good = '7:journal1:1' + '3:1011:12:u:5:{"a"}';
    assert.deepEqual(
      decodeAlarmPush(Buffer.from(good)),
      new Map([['journal', [{ seq: 101, epoch: 1, text: entryText('{"a"}', ':') }]]]),
    );
    for (const bad of [
      'not json',
      '[]',
      good.slice(0, -1),
      `${good}7:journal`,
      '7:journal1:0',
      '7:journal1:x',
      '7:journal1:1' + '3:1x11:12:u:5:{"a"}',
      '7:journal1:1' + '3:1011:1',
      '9999999999:x',
      ':journal',
    ])
      assert.equal(decodeAlarmPush(Buffer.from(bad)), undefined, bad);
  });
});
