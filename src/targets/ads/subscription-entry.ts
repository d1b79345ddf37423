// What the subscription manager keeps per subscribed symbol: its subscribers, how it is watched (ADS
// notification, polling or not yet) and the binding to the current connection.
import type { ChangeEvent, PollReason, SubscribeOptions, SubscriptionMode } from '../target.ts';
import type { IncrementalDecoder } from '../../plc/index.ts';
import type { Session } from './link-session.ts';
import type { SymbolAddress } from './symbol-table.ts';

export interface Listener {
  path: string;
  options: SubscribeOptions;
  open: boolean;
}

/** The ads-client subscription object, reduced to what we use. */
export interface NotificationHandle {
  notificationHandle: number;
  unsubscribe(): Promise<void>;
}

export interface Entry {
  /** The symbol, cycle and transmission (see entryKey): subscribers differing in either get their own. */
  key: string;
  address: SymbolAddress;
  listeners: Set<Listener>;
  /** The cycle the PLC samples (on-change) or sends (cyclic) at. */
  readonly cycleMs: number;
  /** The subscription's mode (ADS transmission mode): send on change, or every cycle. */
  readonly transmission: SubscriptionMode;
  /** How it is watched now: an ADS notification, polling, or not yet. */
  mode: 'notify' | 'poll' | 'idle';
  /** Since when (ms since the epoch) it is watched the way `mode` says. */
  since: number;
  /** Why it is polled, while it is. */
  pollReason: PollReason | undefined;
  /** Polled while a notification is being registered for it (returning to notifications). */
  promoting: boolean;
  handle: NotificationHandle | undefined;
  session: Session | undefined;
  /** Bumped by every (re)bind: callbacks of an older binding are ignored. */
  generation: number;
  /**
   * Set from a re-registration (see NotificationAlignment) until the next rebind: the old and the new notification both
   * deliver, in the PLC's order, and may report one change a cycle apart, so a sample equal to the last
   * one delivered is the other's report of it, not a change.
   */
  settling: boolean;
  /** A notification that arrived before the AddNotification answer was processed. */
  early: { handle: number; data: Buffer; timestamp: Date } | undefined;
  last: { data: Buffer; event: Omit<ChangeEvent, 'symbol'> } | undefined;
  /** Decodes each notification against the last, so unchanged array elements are not decoded again. */
  decoder: IncrementalDecoder;
  /** The first bind, while subscribe() waits for it. */
  binding: Promise<void> | undefined;
}

/** Subscribers share an entry (one notification) when symbol, cycle and transmission are equal. */
export function entryKey(path: string, cycleMs: number, transmission: SubscriptionMode): string {
  return `${path.toUpperCase()}|${cycleMs}|${transmission}`;
}
