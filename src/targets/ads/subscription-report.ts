// The admin listing of a connection's subscriptions: what each shared entry is (symbol, cycle, transmission
// mode, subscribers), read from the entry here and nowhere else.
import type { SubscriptionReport, WatchedSymbol } from '../target.ts';
import type { Entry } from './subscription-entry.ts';

/** One entry as the listing shows it: the (symbol, cycle, mode) its subscribers share. */
export function watched(e: Entry): WatchedSymbol {
  return {
    symbol: e.address.path,
    cycleMs: e.cycleMs,
    mode: e.transmission,
    clients: e.listeners.size,
    since: new Date(e.since),
  };
}

/** The entries sorted into notified, polled (with why) and waiting for a connection, oldest first. */
export function sortEntries(
  entries: Iterable<Entry>,
): Pick<SubscriptionReport, 'notifications' | 'polled' | 'waiting'> {
  const out: Pick<SubscriptionReport, 'notifications' | 'polled' | 'waiting'> = {
    notifications: [],
    polled: [],
    waiting: [],
  };
  for (const e of [...entries].sort((a, b) => a.since - b.since)) {
    const w = watched(e);
    if (e.mode === 'notify') out.notifications.push(w);
    else if (e.mode === 'poll') out.polled.push({ ...w, reason: e.pollReason ?? 'budget' });
    else out.waiting.push(w);
  }
  return out;
}
