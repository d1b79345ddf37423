// The alarm list result as response bytes. A PLC's items are serialized when its outstanding list changes (an
// unchanged alarm keeps its JSON), and a fleet body is assembled when one of its parts changes, so a list of
// thousands of alarms costs a lookup per request instead of a render and a serialization.
import { peerOf } from './alarm-view.ts';
import { includeNone, type AlarmView, type Include } from './management.ts';
import type { AlarmReading } from './reading.ts';
import type { FailedScope } from './schemas.ts';
import type { AlarmService } from './service.ts';

/** The text around the list result's JSON in the body (the response envelope). */
export interface BodyFrame {
  readonly before: string;
  readonly after: string;
}

/** Culture preferences kept per outstanding list, and (PLC set, culture) bodies kept: the rest are rebuilt. */
const maxCulturesPerList = 8;
const maxBodies = 16;
const comma = Buffer.from(',');

interface HeldBody {
  readonly head: string;
  readonly parts: readonly Buffer[];
  readonly body: Buffer;
}

export class AlarmListBodies {
  readonly #service: AlarmService;
  readonly #frame: BodyFrame;
  /** A PLC's items, comma-separated, by outstanding list and culture preference. */
  readonly #parts = new WeakMap<readonly AlarmReading[], Map<string, Buffer>>();
  /** One alarm's JSON for the culture preference (and the marks of its groups) it was last asked in. */
  readonly #items = new WeakMap<AlarmReading, { cultures: string; marks: string; json: Buffer }>();
  readonly #bodies = new Map<string, HeldBody>();

  constructor(service: AlarmService, frame: BodyFrame) {
    this.#service = service;
    this.#frame = frame;
  }

  /** The list result over `plcIds` (each monitored), as `AlarmService.list` answers it, framed. */
  body(plcIds: readonly string[], cultures: readonly string[], include: Include = includeNone): Buffer {
    const cultureKey = cultures.join(',');
    const parts: Buffer[] = [];
    const failedPeers: string[] = [];
    const failed: FailedScope[] = [];
    let count = 0;
    const counts = { shelved: 0, outOfService: 0, suppressed: 0 };
    for (const plcId of plcIds) {
      const m = this.#service.monitor(plcId);
      const view = this.#service.view(plcId, include);
      count += view.items.length;
      counts.shelved += view.counts.shelved;
      counts.outOfService += view.counts.outOfService;
      counts.suppressed += view.counts.suppressed;
      if (view.items.length > 0) parts.push(this.#part(plcId, view, cultures, cultureKey));
      const failure = m.failure();
      if (failure) {
        failedPeers.push(peerOf(plcId));
        failed.push({ peer: peerOf(plcId), ...failure });
      }
    }
    const head =
      `${this.#frame.before}{"count":${count},"shelvedCount":${counts.shelved},` +
      `"outOfServiceCount":${counts.outOfService},"suppressedCount":${counts.suppressed},` +
      `"partial":${failed.length > 0},` +
      `"failedPeers":${JSON.stringify(failedPeers)},"x-ads-failed":${JSON.stringify(failed)},"items":[`;
    const key = `${cultureKey}|${include.shelved ? 's' : ''}${include.outOfService ? 'o' : ''}${include.suppressed ? 'x' : ''}|${plcIds.join(',')}`;
    const held = this.#bodies.get(key);
    if (held?.head === head && sameParts(held.parts, parts)) return held.body;
    const chunks: Buffer[] = [Buffer.from(head)];
    parts.forEach((part, i) => chunks.push(...(i === 0 ? [part] : [comma, part])));
    chunks.push(Buffer.from(`]}${this.#frame.after}`));
    const body = Buffer.concat(chunks);
    this.#bodies.delete(key);
    if (this.#bodies.size >= maxBodies) this.#bodies.delete(this.#bodies.keys().next().value ?? '');
    this.#bodies.set(key, { head, parts, body });
    return body;
  }

  #part(plcId: string, view: AlarmView, cultures: readonly string[], cultureKey: string): Buffer {
    // A view's items are the outstanding array itself while nothing is grouped, else an array made per change.
    const outstanding = view.items;
    let byCulture = this.#parts.get(outstanding);
    const hit = byCulture?.get(cultureKey);
    if (hit !== undefined) return hit;
    const renderer = this.#service.renderer(cultures);
    // Items are kept encoded: a changed list copies the bytes of the alarms that did not change.
    const items: Buffer[] = [];
    for (const r of outstanding) {
      const marks = view.marks.get(r.key);
      const marksKey = marks === undefined ? '' : JSON.stringify(marks);
      let item = this.#items.get(r);
      if (item?.cultures !== cultureKey || item.marks !== marksKey) {
        const alarm = renderer.render(plcId, r, undefined, marks);
        item = { cultures: cultureKey, marks: marksKey, json: Buffer.from(JSON.stringify(alarm)) };
        this.#items.set(r, item);
      }
      if (items.length > 0) items.push(comma);
      items.push(item.json);
    }
    const part = Buffer.concat(items);
    if (byCulture === undefined) {
      byCulture = new Map<string, Buffer>();
      this.#parts.set(outstanding, byCulture);
    }
    if (byCulture.size < maxCulturesPerList) byCulture.set(cultureKey, part);
    return part;
  }
}

const sameParts = (a: readonly Buffer[], b: readonly Buffer[]): boolean =>
  a.length === b.length && a.every((part, i) => part === b[i]);
