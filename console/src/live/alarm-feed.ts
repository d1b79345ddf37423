// The fleet's outstanding alarms, kept live from the alarm stream (GET /api/alarms/stream). The first connection
// asks for a resync (the current list, atomically with the stream's position); after a drop the console
// reconnects with Last-Event-ID, so the gateway replays exactly the transitions it missed: none is lost and
// none is applied twice. A gateway without the stream is polled instead. The list is the default view: an alarm
// shelved, taken out of service or suppressed leaves it (`shelving` events), and rejoins it when that ends.
import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError, describeError, plcPath } from '../api/http.ts';
import type { Alarm, AlarmList } from '../api/types.ts';
import { onSignOut, session } from '../auth/session.ts';
import { openEventStream, readEvents } from './sse.ts';

type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'polling';

export interface AlarmFeed {
  list: AlarmList | undefined;
  status: string;
  error: string | undefined;
  /** Transitions applied since the feed started (a resync replaces the list and is not counted). */
  applied: number;
  /** Grows with every `shelving` event: what shows the groups loads them again. */
  managed: number;
}

const list = signal<AlarmList | undefined>(undefined);
const status = signal<FeedStatus>('connecting');
const error = signal<string | undefined>(undefined);
const applied = signal(0);
const managed = signal(0);

// Not a journal cursor: the gateway answers it with `resync` (the current list), then live transitions.
const resyncCursor = 'resync';
let users = 0;
let controller: AbortController | undefined;
let lastEventId = resyncCursor;

const keyOf = (a: Alarm): string => `${a.scope}\n${a.code}`;

function apply(kind: string, alarm: Alarm): void {
  const current = list.value;
  if (current === undefined) return;
  const items = current.items.filter((a) => keyOf(a) !== keyOf(alarm));
  if (kind !== 'ended') {
    const at = current.items.findIndex((a) => keyOf(a) === keyOf(alarm));
    items.splice(at < 0 ? items.length : at, 0, alarm);
  }
  list.value = { ...current, items, count: items.length };
  applied.value++;
}

/** A `shelving` event: one alarm's shelve or service state, or a suppression rule turning on or off. */
interface ShelvingEvent {
  plcId: string;
  action: string;
  code?: string;
  keys?: string[];
}

const hides = new Set(['shelved', 'outOfService', 'suppressed']);

/**
 * An alarm leaving the default view goes from the list; one rejoining it is read from the PLC's list (the stream
 * sent none of its transitions while it was away), and only that alarm is taken from it.
 */
async function manage(event: ShelvingEvent): Promise<void> {
  managed.value++;
  const keys = new Set(event.keys ?? (event.code === undefined ? [] : [event.code]));
  const current = list.value;
  if (current === undefined || keys.size === 0) return;
  if (hides.has(event.action)) {
    const items = current.items.filter((a) => !(a.scope === event.plcId && keys.has(a.code)));
    list.value = { ...current, items, count: items.length };
    return;
  }
  let fresh: AlarmList;
  try {
    fresh = await api.get<AlarmList>(plcPath(event.plcId, 'alarms'));
  } catch {
    return;
  }
  const latest = list.value;
  if (latest === undefined) return;
  const rejoined = fresh.items.filter((a) => keys.has(a.code));
  const items = latest.items.filter((a) => !(a.scope === event.plcId && keys.has(a.code)));
  items.push(...rejoined);
  list.value = { ...latest, items, count: items.length };
}

async function poll(signal: AbortSignal): Promise<void> {
  status.value = 'polling';
  while (!signal.aborted) {
    try {
      list.value = await api.get<AlarmList>('/api/alarms');
      error.value = undefined;
    } catch (err) {
      error.value = describeError(err);
    }
    await new Promise((done) => setTimeout(done, 2000));
  }
}

async function follow(signal: AbortSignal): Promise<void> {
  let attempt = 0;
  while (!signal.aborted) {
    if (session.value === undefined) return;
    try {
      const response = await openEventStream('/api/alarms/stream', signal, lastEventId);
      attempt = 0;
      error.value = undefined;
      await readEvents(
        response,
        (e) => {
          if (e.event === 'resync') {
            list.value = JSON.parse(e.data) as AlarmList;
            status.value = 'live';
          } else if (e.event === 'alarm') {
            const frame = JSON.parse(e.data) as { kind: string; alarm: Alarm };
            apply(frame.kind, frame.alarm);
            status.value = 'live';
          } else if (e.event === 'shelving') {
            void manage(JSON.parse(e.data) as ShelvingEvent);
          } else if (e.event === 'gap') {
            // Events were dropped for this client: start over from the current list.
            lastEventId = resyncCursor;
            controller?.abort();
          }
          if (e.id !== undefined && e.event !== 'gap') lastEventId = e.id;
        },
        signal,
      );
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && (err.status === 404 || err.status === 401 || err.status === 403)) {
        if (err.status === 404) return poll(signal);
        error.value = describeError(err);
        return;
      }
      error.value = describeError(err);
      // Stream openings are rate-limited per user: back off for longer than the usual retry.
      if (err instanceof ApiError && err.status === 429) attempt = 6;
    }
    if (signal.aborted) return;
    status.value = 'reconnecting';
    await new Promise((done) => setTimeout(done, Math.min(250 * 2 ** attempt++, 15_000)));
  }
}

function start(): void {
  controller = new AbortController();
  const mine = controller;
  void follow(mine.signal).then(() => {
    // A gap aborts to start over; anything else that ends the loop leaves the feed stopped.
    if (mine.signal.aborted && controller === mine && users > 0) start();
  });
}

function stop(): void {
  controller?.abort();
  controller = undefined;
  list.value = undefined;
  status.value = 'connecting';
  lastEventId = resyncCursor;
}

onSignOut(stop);

const statusText: Record<FeedStatus, string> = {
  connecting: 'Connecting to the alarm stream…',
  live: 'Live',
  reconnecting: 'Alarm stream lost: reconnecting; the list may be behind',
  polling: 'Polling every 2 s (this gateway has no alarm stream)',
};

/** The live alarm list while the calling component is shown (one stream however many use it). */
export function useAlarms(): AlarmFeed {
  useEffect(() => {
    if (users++ === 0) start();
    return () => {
      if (--users === 0) stop();
    };
  }, []);
  return {
    list: list.value,
    status: statusText[status.value],
    error: error.value,
    applied: applied.value,
    managed: managed.value,
  };
}
