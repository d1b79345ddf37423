// Alarm transitions to one stream client (SSE or the SignalR hub) over the PLCs it may see: `alarm` events
// `{ kind, alarm }` with ids `<plcId>:<seq>` (fleet: every PLC's last seq, comma-separated), and resumption from a
// Last-Event-ID: the journal's missed transitions in order, or a `resync` with the alarm list when it cannot.
// Transitions of shelved, out-of-service and suppressed alarms reach only clients that include their group;
// every client gets the `shelving` events (no id), which tell it an alarm left or rejoined the default view.
import type { EventSink } from '../../http/streams/outbox.ts';
import type { JournalEntry } from './journal.ts';
import type { AlarmSource } from './alarm-source.ts';
import { includeNone, type Include } from './management.ts';
import { historyItem, type AlarmService } from './service.ts';

/** PLC -> the last seq a client has seen. */
type Cursor = ReadonlyMap<string, number>;

/** `line1:17,line2:40` -> cursor; undefined when the text is not one. */
function parseCursor(text: string): Cursor | undefined {
  const cursor = new Map<string, number>();
  for (const part of text.split(',')) {
    const m = /^([A-Za-z0-9_-]{1,64}):(\d{1,16})$/.exec(part.trim());
    if (!m?.[1] || !m[2] || cursor.has(m[1])) return undefined;
    cursor.set(m[1], Number(m[2]));
  }
  return cursor;
}

function formatCursor(cursor: Cursor): string {
  return [...cursor].map(([plcId, seq]) => `${plcId}:${seq}`).join(',');
}

export interface FeedOptions {
  readonly service: AlarmService;
  /** Monitored PLCs this client may see (one for the per-PLC routes). */
  readonly plcIds: readonly string[];
  /** The fleet stream's ids carry every PLC's position; a per-PLC stream's only its own. */
  readonly fleet: boolean;
  readonly cultures: readonly string[];
  /** Last-Event-ID as the client sent it, or null. */
  readonly lastEventId: string | null;
  /** More missed transitions than this (the client's queue length) are not replayed: a resync replaces them. */
  readonly maxReplay: number;
  /** Groups whose alarms' transitions the client also wants (`?include=`). */
  readonly include?: Include;
}

// A transition's `{ kind, alarm }` JSON, made once per culture preference and shared by every client it is sent to
// with it. Kept as long as the entry object is: the clients of a transition are sent it together, then the entry
// and its frames are garbage while still young (a cache of the latest transitions kept them long enough to be
// promoted, so the old generation filled with them). Replays read new entries, and render again.
const framed = new WeakMap<JournalEntry, Map<string, string>>();
const maxCulturesPerEntry = 8;

function frameJson(
  service: AlarmService,
  plcId: string,
  entry: JournalEntry,
  cultures: readonly string[],
): string {
  const key = cultures.join(',');
  let byCulture = framed.get(entry);
  const hit = byCulture?.get(key);
  if (hit !== undefined) return hit;
  const { kind, alarm } = historyItem(plcId, entry, service.renderer(cultures));
  const json = JSON.stringify({ kind, alarm });
  if (byCulture === undefined) {
    byCulture = new Map<string, string>();
    framed.set(entry, byCulture);
  }
  if (byCulture.size < maxCulturesPerEntry) byCulture.set(key, json);
  return json;
}

/**
 * Starts a client's feed on `sink`: resumption first (replay or resync), then live transitions, in one tick so
 * nothing falls between the two. Returns the function that stops the feed.
 */
export function openAlarmFeed(sink: EventSink, options: FeedOptions): () => void {
  const { service, plcIds, cultures } = options;
  const include = options.include ?? includeNone;
  const monitors = plcIds.map((id) => service.monitor(id));
  const managements = new Map(plcIds.map((id) => [id, service.management(id)] as const));
  const seen = new Map(monitors.map((m) => [m.plcId, m.journal.newest()] as const));
  const send = (plcId: string, entry: JournalEntry): void => {
    seen.set(plcId, entry.seq);
    if (managements.get(plcId)?.shows(entry.reading.key, include) === false) return;
    const id = options.fleet ? formatCursor(seen) : `${plcId}:${entry.seq}`;
    sink.send({ name: 'alarm', data: frameJson(service, plcId, entry, cultures), id });
  };

  const resync = (): void => {
    for (const m of monitors) seen.set(m.plcId, m.journal.newest());
    const list = service.list(plcIds, cultures, include);
    sink.send({ name: 'resync', data: JSON.stringify(list), id: formatCursor(seen) });
  };

  const last = options.lastEventId?.trim() ?? '';
  if (last !== '') {
    const cursor = parseCursor(last);
    if (cursor !== undefined && replayable(monitors, cursor, options.maxReplay))
      replay(monitors, cursor, seen, send);
    else resync();
  }

  const stops = monitors.flatMap((m) => [
    m.onTransitions((entries) => {
      // A shared journal's mirror may trail the replica a resuming client came from: nothing is sent twice.
      const at = seen.get(m.plcId) ?? 0;
      for (const e of entries) if (e.seq > at) send(m.plcId, e);
    }),
    m.onResync(resync),
  ]);
  for (const management of managements.values()) {
    stops.push(management.onEvent((event) => sink.send({ name: 'shelving', data: JSON.stringify(event) })));
  }
  return () => {
    for (const stop of stops) stop();
  };
}

/** Every PLC's journal still holds what the cursor missed, and all of it fits the client's queue. */
function replayable(monitors: readonly AlarmSource[], cursor: Cursor, max: number): boolean {
  let missed = 0;
  for (const m of monitors) {
    const seq = cursor.get(m.plcId);
    if (seq === undefined || !m.journal.holdsAfter(seq)) return false;
    // Sequence numbers are consecutive within a journal.
    missed += m.journal.newest() - seq;
  }
  return missed <= max;
}

/** Every transition after the cursor, PLC by PLC, oldest first. */
function replay(
  monitors: readonly AlarmSource[],
  cursor: Cursor,
  seen: Map<string, number>,
  send: (plcId: string, entry: JournalEntry) => void,
): void {
  for (const m of monitors) {
    const after = cursor.get(m.plcId);
    // Each replayed id names, for the PLCs not replayed yet, the position the client already had.
    if (after !== undefined) seen.set(m.plcId, after);
  }
  for (const m of monitors) {
    let after = cursor.get(m.plcId);
    for (;;) {
      const page = m.journal.readSince(after, 1000);
      if (page.entries.length === 0) break;
      for (const e of page.entries) send(m.plcId, e);
      after = page.nextAfter;
    }
  }
}
