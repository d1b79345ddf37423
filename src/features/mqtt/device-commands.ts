// Sparkplug DCMD writes: refused unless `Mqtt.AllowWrites` is on, and then only to symbols matching
// `Mqtt.WritableSymbols` (`[*]` for every index); each attempt, done or refused, is audited as user `mqtt`.
// One device's writes run one after another, at most `maxQueued` waiting; more are refused.
import type { AuditTrail } from '../../audit/trail.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { PlcTarget, PlcValue } from '../../targets/target.ts';
import { plcValueOf, type SparkplugType } from './datatypes.ts';
import { patternOf } from './symbol-entries.ts';

export interface CommandWrite {
  readonly name: string;
  readonly type: SparkplugType;
  readonly value: unknown;
  /** The value the gateway last saw, for the audit record. */
  readonly oldValue: PlcValue | undefined;
}

export interface CommandLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Audit user of DCMD writes. */
export const mqttUser = 'mqtt';
const maxQueued = 100;

export class DeviceCommands {
  readonly #allow: boolean;
  readonly #writable: RegExp[];
  readonly #audit: Pick<AuditTrail, 'record'>;
  readonly #log: CommandLog;
  readonly #chains = new Map<string, { tail: Promise<void>; queued: number }>();

  constructor(
    settings: { AllowWrites: boolean; WritableSymbols: readonly string[] },
    audit: Pick<AuditTrail, 'record'>,
    log: CommandLog,
  ) {
    this.#allow = settings.AllowWrites;
    this.#writable = settings.WritableSymbols.map(patternOf);
    this.#audit = audit;
    this.#log = log;
  }

  writable(path: string): boolean {
    return this.#allow && this.#writable.some((re) => re.test(path));
  }

  /** Queues the writes of one DCMD; never waits for them. */
  submit(target: PlcTarget, writes: readonly CommandWrite[]): void {
    let chain = this.#chains.get(target.id);
    if (chain === undefined) {
      chain = { tail: Promise.resolve(), queued: 0 };
      this.#chains.set(target.id, chain);
    }
    const c = chain;
    for (const w of writes) {
      if (c.queued >= maxQueued) {
        void this.#refuse(target, w, `More than ${maxQueued} DCMD writes wait for PLC '${target.id}'.`);
        continue;
      }
      c.queued += 1;
      c.tail = c.tail.then(async () => {
        try {
          await this.#write(target, w);
        } finally {
          c.queued -= 1;
        }
      });
    }
  }

  async #write(target: PlcTarget, w: CommandWrite): Promise<void> {
    if (!this.writable(w.name)) {
      const why = this.#allow
        ? `${w.name} is not in Mqtt.WritableSymbols.`
        : 'MQTT writes are off (Mqtt.AllowWrites is false).';
      await this.#refuse(target, w, why);
      return;
    }
    const value = plcValueOf(w.type, w.value);
    try {
      await target.write(w.name, value);
      await this.#audit.record({
        sub: mqttUser,
        plcId: target.id,
        action: 'variable.write',
        target: w.name,
        oldValue: w.oldValue ?? null,
        newValue: value,
      });
    } catch (err) {
      const error = isAppError(err) ? err : new AppError('INTERNAL_ERROR');
      this.#log.warn({ plcId: target.id, symbol: w.name, code: error.code }, 'MQTT DCMD write failed');
      await this.#audit.record({
        sub: mqttUser,
        plcId: target.id,
        action: 'variable.write',
        target: w.name,
        error: { code: error.code, message: error.message },
        newValue: value,
      });
    }
  }

  async #refuse(target: PlcTarget, w: CommandWrite, message: string): Promise<void> {
    this.#log.warn({ plcId: target.id, symbol: w.name }, `MQTT DCMD write refused: ${message}`);
    await this.#audit.record({
      sub: mqttUser,
      plcId: target.id,
      action: 'variable.write',
      target: w.name,
      error: { code: 'MQTT_WRITE_DENIED', message },
      newValue: plcValueOf(w.type, w.value),
    });
  }
}
