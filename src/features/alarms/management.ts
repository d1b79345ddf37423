// Alarm management of one PLC: its shelving book and suppression rules together, which groups an alarm is in
// (shelved, out of service, suppressed), which alarms a caller sees given the groups it includes, and the
// `shelving` events the streams announce. A shelve ends with its alarm's occurrence (one-shot shelving).
import { AppError } from '../../errors.ts';
import type { AlarmSource } from './alarm-source.ts';
import type { AlarmReading } from './reading.ts';
import type { OutOfService, Shelve, ShelvingEntry, ShelvingStore } from './shelving.ts';
import type { Suppression, SuppressionChange } from './suppression.ts';

/** The groups a caller asks to see besides the default list (`?include=`). */
export interface Include {
  readonly shelved: boolean;
  readonly outOfService: boolean;
  readonly suppressed: boolean;
}

export const includeNone: Include = { shelved: false, outOfService: false, suppressed: false };
const groupNames = ['shelved', 'outOfService', 'suppressed'] as const;

/**
 * `?include=` values: names separated by commas, the parameter repeated, or `all`. 400 VALIDATION_ERROR for any
 * other name.
 */
export function parseInclude(values: string | readonly string[] | undefined): Include {
  if (values === undefined) return includeNone;
  const names = (typeof values === 'string' ? [values] : values)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const include = { shelved: false, outOfService: false, suppressed: false };
  for (const name of names) {
    if (name === 'all') {
      include.shelved = include.outOfService = include.suppressed = true;
    } else if ((groupNames as readonly string[]).includes(name)) {
      include[name as (typeof groupNames)[number]] = true;
    } else {
      throw new AppError(
        'VALIDATION_ERROR',
        `include: '${name.slice(0, 64)}' is not one of shelved, outOfService, suppressed, all.`,
      );
    }
  }
  return include;
}

/** The marks an alarm in a group carries. */
export interface Marks {
  readonly shelved?: Shelve;
  readonly outOfService?: OutOfService;
  readonly suppressed?: { readonly rule: string };
}

export interface GroupCounts {
  shelved: number;
  outOfService: number;
  suppressed: number;
}

/** What a caller sees of one PLC's outstanding alarms. */
export interface AlarmView {
  /** The visible alarms in slot order: the outstanding array itself while no alarm is in a group. */
  readonly items: readonly AlarmReading[];
  /** Marks of the visible alarms in a group. */
  readonly marks: ReadonlyMap<string, Marks>;
  /** Outstanding alarms per group, shown or not. */
  readonly counts: Readonly<GroupCounts>;
}

const noMarks: ReadonlyMap<string, Marks> = new Map();
const noCounts: Readonly<GroupCounts> = { shelved: 0, outOfService: 0, suppressed: 0 };

/** What a `shelving` stream event carries. */
export type ShelvingEvent =
  | (Omit<ShelvingEntry, 'seq'> & { readonly plcId: string; readonly seq: number })
  | {
      readonly plcId: string;
      readonly at: string;
      readonly action: 'suppressed' | 'unsuppressed';
      readonly rule: string;
      readonly keys: readonly string[];
    };

export class AlarmManagement {
  readonly plcId: string;
  readonly store: ShelvingStore;
  readonly suppression: Suppression;
  readonly #source: AlarmSource;
  readonly #now: () => number;
  readonly #listeners = new Set<(event: ShelvingEvent) => void>();
  /** Views by include key, while the outstanding array and the versions stay. */
  readonly #views = new Map<
    number,
    { outstanding: readonly AlarmReading[]; version: string; view: AlarmView }
  >();
  #stops: Array<() => void> = [];

  constructor(source: AlarmSource, store: ShelvingStore, suppression: Suppression, now: () => number) {
    this.plcId = source.plcId;
    this.#source = source;
    this.store = store;
    this.suppression = suppression;
    this.#now = now;
  }

  async start(): Promise<void> {
    this.#stops = [
      this.store.onChange((entry) => this.#announce({ ...entry, plcId: this.plcId })),
      this.suppression.onChange((change) => this.#suppressionChanged(change)),
      // The shelve ends on the next turn, after the stream feeds were handed the transition: the `ended` of a
      // shelved alarm stays hidden like the rest of its occurrence, and `unshelved` (cause ended) follows it.
      this.#source.onTransitions((entries) => {
        for (const e of entries) {
          if (e.kind === 'ended' && this.store.shelve(e.reading.key) !== undefined)
            setImmediate(() => void this.#endOccurrence(e.reading.key));
        }
      }),
    ];
    await this.store.start();
    this.suppression.start();
  }

  async stop(): Promise<void> {
    for (const stop of this.#stops) stop();
    this.#listeners.clear();
    await this.suppression.stop();
    await this.store.stop();
  }

  onEvent(listener: (event: ShelvingEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The groups `key` is in now, or undefined when none. */
  marksOf(key: string): Marks | undefined {
    const shelved = this.store.shelve(key);
    const outOfService = this.store.outOfService(key);
    const rule = this.suppression.ruleFor(key);
    if (shelved === undefined && outOfService === undefined && rule === undefined) return undefined;
    return {
      ...(shelved ? { shelved } : {}),
      ...(outOfService ? { outOfService } : {}),
      ...(rule === undefined ? {} : { suppressed: { rule } }),
    };
  }

  /** Whether an alarm in the groups `marks` names is shown to a caller including `include`. */
  static visible(marks: Marks | undefined, include: Include): boolean {
    if (marks === undefined) return true;
    return (
      (marks.shelved === undefined || include.shelved) &&
      (marks.outOfService === undefined || include.outOfService) &&
      (marks.suppressed === undefined || include.suppressed)
    );
  }

  /** Whether `key`'s transitions reach a stream client including `include`. */
  shows(key: string, include: Include): boolean {
    return AlarmManagement.visible(this.marksOf(key), include);
  }

  /** The visible alarms of the outstanding ones, made once per change of the alarms or the groups. */
  view(include: Include): AlarmView {
    const outstanding = this.#source.outstanding();
    const storeVersion = this.store.version();
    if (this.store.empty && this.suppression.empty)
      return { items: outstanding, marks: noMarks, counts: noCounts };
    const version = `${storeVersion}:${this.suppression.version()}`;
    const key = (include.shelved ? 1 : 0) | (include.outOfService ? 2 : 0) | (include.suppressed ? 4 : 0);
    const held = this.#views.get(key);
    if (held?.outstanding === outstanding && held.version === version) return held.view;
    const items: AlarmReading[] = [];
    const marks = new Map<string, Marks>();
    const counts = { shelved: 0, outOfService: 0, suppressed: 0 };
    for (const r of outstanding) {
      const m = this.marksOf(r.key);
      if (m?.shelved) counts.shelved += 1;
      if (m?.outOfService) counts.outOfService += 1;
      if (m?.suppressed) counts.suppressed += 1;
      if (!AlarmManagement.visible(m, include)) continue;
      items.push(r);
      if (m !== undefined) marks.set(r.key, m);
    }
    const view = { items, marks, counts };
    this.#views.set(key, { outstanding, version, view });
    return view;
  }

  async #endOccurrence(key: string): Promise<void> {
    await this.store.endShelve(key, 'ended').catch(() => undefined);
  }

  #suppressionChanged(change: SuppressionChange): void {
    this.#announce({
      plcId: this.plcId,
      at: new Date(this.#now()).toISOString(),
      action: change.active ? 'suppressed' : 'unsuppressed',
      rule: change.rule,
      keys: change.keys,
    });
  }

  #announce(event: ShelvingEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}
