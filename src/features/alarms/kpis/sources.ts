// The alarm transitions of a KPI window and the part of it they cover: from the history store (the alarm
// archive) when one is published, else from what the PLC's journal still holds.
import type { AlarmArchive } from '../archive.ts';
import type { JournalEntry, JournalReader } from '../journal.ts';

/** Entries read per archive or journal page. */
const pageLength = 1000;

export interface WindowRead {
  readonly source: 'history' | 'journal';
  /** The part of the asked window the entries cover, [from, to) in Unix ms. */
  readonly from: number;
  readonly to: number;
  /** Why the covered window is shorter than the asked one, when it is. */
  readonly limitedBy?: 'retention' | 'journal' | 'maxTransitions';
  readonly entries: readonly JournalEntry[];
}

/**
 * Cuts `entries` (oldest first) after `max`: when there are more, the window ends at the time of the first one
 * left out, and every entry of that instant goes too, so the answer holds every transition of what it covers.
 */
function bounded(entries: JournalEntry[], max: number, to: number): { entries: JournalEntry[]; to: number } {
  const first = entries[max];
  if (first === undefined) return { entries, to };
  const cut = Date.parse(first.at);
  return { entries: entries.filter((e) => Date.parse(e.at) < cut), to: cut };
}

/** From the history store: [from, to), no further back than its retention keeps. */
export async function readArchive(
  archive: AlarmArchive,
  plcId: string,
  window: { from: number; to: number },
  options: { max: number; retainedSince: number },
): Promise<WindowRead> {
  const from = Math.max(window.from, options.retainedSince);
  const entries: JournalEntry[] = [];
  let after = 0;
  while (from < window.to && entries.length <= options.max) {
    const page = await archive.read(plcId, from, window.to, after, pageLength);
    entries.push(...page);
    const last = page.at(-1);
    if (last === undefined || page.length < pageLength) break;
    after = last.seq;
  }
  const cut = bounded(entries, options.max, window.to);
  const limitedBy = cut.to < window.to ? 'maxTransitions' : from > window.from ? 'retention' : undefined;
  return {
    source: 'history',
    from: Math.min(from, cut.to),
    to: cut.to,
    ...(limitedBy ? { limitedBy } : {}),
    entries: cut.entries,
  };
}

/**
 * The cursor before the first held entry at or after `from` (undefined: from the oldest), found by halving, so a
 * window at the end of a long journal parses a few entries before it instead of all of them. Entries are in
 * gateway-time order (appended as they happen).
 */
function cursorAt(journal: JournalReader, from: number): number | undefined {
  const first = journal.readSince(undefined, 1).entries[0];
  if (first === undefined || Date.parse(first.at) >= from) return undefined;
  // The entry numbered lo is before `from`; the first entry numbered hi or more is not (or there is none).
  let lo = first.seq;
  let hi = journal.newest() + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const probe = journal.readSince(mid - 1, 1).entries[0];
    if (probe === undefined || Date.parse(probe.at) >= from) hi = mid;
    else lo = probe.seq;
  }
  return lo;
}

/** From the journal: the part of [from, to) since which it holds every transition. */
export function readJournal(
  journal: JournalReader,
  window: { from: number; to: number },
  options: { max: number },
): WindowRead {
  const held = journal.heldSince() ?? window.to;
  const from = Math.min(window.to, Math.max(window.from, held));
  const entries: JournalEntry[] = [];
  let cursor = cursorAt(journal, from);
  for (;;) {
    const page = journal.readSince(cursor, pageLength);
    let past = false;
    for (const e of page.entries) {
      const at = Date.parse(e.at);
      if (at >= window.to) past = true;
      else if (at >= from) entries.push(e);
    }
    if (page.entries.length === 0 || past || entries.length > options.max) break;
    cursor = page.nextAfter;
  }
  const cut = bounded(entries, options.max, window.to);
  const limitedBy = cut.to < window.to ? 'maxTransitions' : from > window.from ? 'journal' : undefined;
  return {
    source: 'journal',
    from: Math.min(from, cut.to),
    to: cut.to,
    ...(limitedBy ? { limitedBy } : {}),
    entries: cut.entries,
  };
}
