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

/** From the journal: the part of [from, to) since which it holds every transition. */
export function readJournal(
  journal: JournalReader,
  window: { from: number; to: number },
  options: { max: number },
): WindowRead {
  const held = journal.heldSince() ?? window.to;
  const from = Math.min(window.to, Math.max(window.from, held));
  const entries: JournalEntry[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = journal.readSince(cursor, pageLength);
    for (const e of page.entries) {
      const at = Date.parse(e.at);
      if (at >= from && at < window.to) entries.push(e);
    }
    if (page.entries.length === 0 || entries.length > options.max) break;
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
