// A subscribed symbol whose type or size a program change altered: its subscribers hear of the new type, and
// the entry forgets what it decoded in the old one, so the values that follow are decoded in the new type.
import { IncrementalDecoder } from '../../plc/index.ts';
import type { TypeChangedNotice } from '../program-change.ts';
import type { Entry } from './subscription-entry.ts';
import type { SymbolAddress } from './symbol-table.ts';
import { checkDecodable } from './undecodable.ts';

/**
 * Announces `next` to every open subscriber of `e` and resets its decoding state; the caller rebinds it.
 * False (nothing announced) when the new type cannot be decoded: the caller invalidates the symbol instead.
 */
export function retype(e: Entry, next: SymbolAddress): boolean {
  try {
    checkDecodable(next.type, next.path);
  } catch {
    return false;
  }
  const before = e.address;
  e.last = undefined;
  e.decoder = new IncrementalDecoder();
  for (const l of [...e.listeners]) {
    if (!l.open) continue;
    const notice: TypeChangedNotice = {
      symbol: l.path,
      type: next.type.name,
      size: next.size,
      previousType: before.type.name,
      previousSize: before.size,
    };
    try {
      l.options.onTypeChanged?.(notice);
    } catch {
      // A subscriber's failure must not stop the others.
    }
  }
  return true;
}
