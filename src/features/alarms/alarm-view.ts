// Readings -> the Alarm resource, with the description in the caller's culture.
import type { Marks } from './management.ts';
import { awaitsAcknowledgement, statusOf, type AlarmReading } from './reading.ts';
import type { Alarm } from './schemas.ts';
import type { TextCatalog } from './text-catalog.ts';

const sourceId = 'ads';

/** `<sourceId>:<scope>`, as failedPeers names a scope. */
export const peerOf = (plcId: string): string => `${sourceId}:${plcId}`;

/** Renders readings for one culture preference; texts are looked up once per key. */
export class AlarmRenderer {
  readonly #catalog: TextCatalog;
  readonly #cultures: readonly string[];

  constructor(catalog: TextCatalog, cultures: readonly string[]) {
    this.#catalog = catalog;
    this.#cultures = cultures;
  }

  render(plcId: string, r: AlarmReading, status = statusOf(r), marks?: Marks): Alarm {
    // Members in the schema's order, so JSON.stringify writes what the route's serializer would.
    const { time } = r;
    return {
      code: r.key,
      sourceId,
      scope: plcId,
      severity: r.severity,
      severityLabel: r.severityLabel,
      status,
      description: this.#catalog.text(r.key, this.#cultures),
      ...(time ? { lastOccurred: time.lastOccurred } : {}),
      capabilities: awaitsAcknowledgement(r) ? ['acknowledge'] : [],
      'x-ads': {
        equipmentId: r.equipmentId,
        errorCode: r.errorCode,
        slotIndex: r.slotIndex,
        needsAcknowledgement: r.needsAck,
        isAcknowledged: r.isAcked,
        ...(time ? { plcTimestamp: time.plcTimestamp, plcClock: time.plcClock } : {}),
      },
      ...(marks?.shelved ? { 'x-shelved': marks.shelved } : {}),
      ...(marks?.outOfService ? { 'x-outOfService': marks.outOfService } : {}),
      ...(marks?.suppressed ? { 'x-suppressed': marks.suppressed } : {}),
    };
  }
}
