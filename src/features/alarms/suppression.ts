// Suppression by design (ISA-18.2) of one PLC's alarms: each `PlcAlarms.Targets.<plcId>.Suppression` rule watches
// one PLC symbol on the shared notification subscriptions and, while its value meets the rule's test, suppresses
// the alarms whose keys match its patterns. A rule whose symbol cannot be read suppresses nothing.
import type { SuppressionRuleConfig } from '../../config/schema.ts';
import type { ChangeEvent, PlcTarget, PlcValue } from '../../targets/target.ts';

/** What suppression needs of the shared subscriptions (the notifications feature's service). */
export interface ObserveSymbol {
  observe(
    target: PlcTarget,
    path: string,
    observer: {
      change(event: ChangeEvent): void;
      invalidated(error: { symbol: string; code: string; message: string }): void;
    },
  ): { ready: Promise<void>; release(): Promise<void> };
}

export interface SuppressionLog {
  warn(fields: object, message: string): void;
}

/** A rule turning on or off. */
export interface SuppressionChange {
  readonly rule: string;
  readonly active: boolean;
  readonly keys: readonly string[];
}

/** How long after a rule's symbol vanished (or could not be subscribed) it is tried again. */
const retryMs = 5000;

/** `CONVEYOR_*` -> /^CONVEYOR_.*$/: `*` any run of characters, `?` one; everything else literal. */
export function keyPattern(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

type Scalar = string | number | boolean;

/** A PLC value and a configured one are equal as values, or as text (64-bit integers arrive as decimal strings). */
function same(value: PlcValue, wanted: Scalar): boolean {
  if (value === wanted) return true;
  if (typeof value === 'object' && value !== null) return false;
  return String(value) === String(wanted);
}

/** Whether `value` meets the rule's test (exactly one of Equals, In, NotEquals is set; checked at start-up). */
export function ruleHolds(when: SuppressionRuleConfig['When'], value: PlcValue): boolean {
  if (when.Equals !== undefined) return same(value, when.Equals);
  if (when.In !== undefined) return when.In.some((v) => same(value, v));
  if (when.NotEquals !== undefined) return !same(value, when.NotEquals);
  return false;
}

interface WatchedRule {
  readonly name: string;
  readonly config: SuppressionRuleConfig;
  readonly patterns: readonly RegExp[];
  active: boolean;
  observation: { release(): Promise<void> } | undefined;
  retry: NodeJS.Timeout | undefined;
}

export class Suppression {
  readonly #target: PlcTarget;
  readonly #rules: WatchedRule[];
  readonly #observe: ObserveSymbol | undefined;
  readonly #log: SuppressionLog;
  readonly #listeners = new Set<(change: SuppressionChange) => void>();
  #version = 0;
  #stopped = false;

  constructor(
    target: PlcTarget,
    rules: readonly SuppressionRuleConfig[],
    observe: ObserveSymbol | undefined,
    log: SuppressionLog,
  ) {
    this.#target = target;
    this.#observe = observe;
    this.#log = log;
    this.#rules = rules.map((config, i) => ({
      name: config.Name ?? `Suppression[${i}]`,
      config,
      patterns: config.Keys.map(keyPattern),
      active: false,
      observation: undefined,
      retry: undefined,
    }));
  }

  /** Whether any rule is on. */
  get empty(): boolean {
    return !this.#rules.some((r) => r.active);
  }

  version(): number {
    return this.#version;
  }

  /** The name of the first rule on whose patterns match `key`. */
  ruleFor(key: string): string | undefined {
    for (const r of this.#rules) if (r.active && r.patterns.some((p) => p.test(key))) return r.name;
    return undefined;
  }

  onChange(listener: (change: SuppressionChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  start(): void {
    for (const rule of this.#rules) this.#watch(rule);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#listeners.clear();
    await Promise.all(
      this.#rules.map(async (r) => {
        clearTimeout(r.retry);
        const o = r.observation;
        r.observation = undefined;
        await o?.release().catch(() => undefined);
      }),
    );
  }

  #watch(rule: WatchedRule): void {
    if (this.#stopped || this.#observe === undefined) return;
    const symbol = rule.config.When.Symbol;
    const observation = this.#observe.observe(this.#target, symbol, {
      change: (event) => this.#set(rule, ruleHolds(rule.config.When, event.value)),
      invalidated: (error) => {
        this.#log.warn(
          { plcId: this.#target.id, rule: rule.name, symbol, reason: error.message },
          'alarm suppression symbol vanished: the rule suppresses nothing until it is back',
        );
        rule.observation = undefined;
        this.#set(rule, false);
        this.#later(rule);
      },
    });
    rule.observation = observation;
    observation.ready.catch((err: unknown) => {
      if (rule.observation !== observation) return;
      rule.observation = undefined;
      this.#log.warn(
        { plcId: this.#target.id, rule: rule.name, symbol, reason: (err as Error).message },
        'alarm suppression symbol not readable: the rule suppresses nothing until it is',
      );
      this.#later(rule);
    });
  }

  #later(rule: WatchedRule): void {
    if (this.#stopped) return;
    clearTimeout(rule.retry);
    rule.retry = setTimeout(() => this.#watch(rule), retryMs);
    rule.retry.unref();
  }

  #set(rule: WatchedRule, active: boolean): void {
    if (rule.active === active) return;
    rule.active = active;
    this.#version += 1;
    const change = { rule: rule.name, active, keys: rule.config.Keys };
    for (const listener of [...this.#listeners]) listener(change);
  }
}
