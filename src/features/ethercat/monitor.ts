// Polls every PLC's EtherCAT masters (each PLC at its EtherCat.PollingIntervalMs), keeps the last reading for
// the `ethercat` readiness check, and tells subscribers about notable slave changes.
import type { Config } from '../../config/schema.ts';
import type { EtherCatMasterReading } from '../../targets/ethercat-port.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import type { PlcTarget } from '../../targets/target.ts';
import { busStatus, notable, worst, type BusStatus } from './bus-health.ts';
import { slaveView, type EtherCatService, type SlaveView } from './service.ts';
import { etherCatSettings } from './settings.ts';

/** What a client is told: `{ masterId, address, slave }`. */
export interface EtherCatChange {
  masterId: number;
  address: number;
  slave: SlaveView;
}

export type EtherCatListener = (change: EtherCatChange) => void;

export interface EtherCatCheck {
  name: 'ethercat';
  status: BusStatus;
  description: string;
  data: Record<string, BusStatus>;
}

interface PlcBus {
  readonly target: PlcTarget;
  /** The last reading; undefined before the first poll. */
  readings: EtherCatMasterReading[] | undefined;
  /** The last poll failed after the PLC had shown masters: its bus state is unknown. */
  failed: boolean;
  polling: Promise<EtherCatMasterReading[] | undefined> | undefined;
  timer: NodeJS.Timeout | undefined;
  readonly listeners: Set<EtherCatListener>;
}

export class EtherCatMonitor {
  readonly #buses = new Map<string, PlcBus>();
  readonly #config: Config;
  readonly #service: EtherCatService;
  #running = false;

  constructor(registry: TargetRegistry, config: Config, service: EtherCatService) {
    this.#config = config;
    this.#service = service;
    for (const target of registry.list()) {
      this.#buses.set(target.id, {
        target,
        readings: undefined,
        failed: false,
        polling: undefined,
        timer: undefined,
        listeners: new Set(),
      });
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    for (const bus of this.#buses.values()) void this.#cycle(bus);
  }

  close(): void {
    this.#running = false;
    for (const bus of this.#buses.values()) clearTimeout(bus.timer);
  }

  /**
   * Notable changes of `plcId`'s slaves from a reading taken after this call: resolves with that reading (what the
   * changes start from, so a new client never starts from a reading older than its request) and the unsubscribe.
   */
  async subscribe(
    plcId: string,
    listener: EtherCatListener,
  ): Promise<{ readings: EtherCatMasterReading[]; stop: () => void }> {
    const bus = this.#buses.get(plcId);
    if (!bus) return { readings: [], stop: () => undefined };
    // A poll in flight may have read the bus before this call: the reading is the next one.
    await bus.polling;
    await this.#poll(bus);
    // Added in the same turn as the reading is taken, so no change falls between the two.
    bus.listeners.add(listener);
    return { readings: bus.readings ?? [], stop: () => void bus.listeners.delete(listener) };
  }

  /** The readiness check: per PLC that has EtherCAT masters, its status; the worst of them overall. */
  check(): EtherCatCheck {
    const data: Record<string, BusStatus> = {};
    const reasons: string[] = [];
    let status: BusStatus = 'Healthy';
    for (const [plcId, bus] of this.#buses) {
      if (!bus.readings || (bus.readings.length === 0 && !bus.failed)) continue;
      const own = bus.failed
        ? { status: 'Unhealthy' as const, reason: 'its EtherCAT masters cannot be read' }
        : busStatus(bus.readings, etherCatSettings(this.#config, plcId).crcErrorThreshold);
      data[plcId] = own.status;
      status = worst(status, own.status);
      if (own.status !== 'Healthy') reasons.push(`${plcId}: ${own.reason}`);
    }
    const count = Object.keys(data).length;
    const description =
      count === 0
        ? 'No PLC with EtherCAT masters.'
        : reasons.length === 0
          ? `${count} PLC${count === 1 ? '' : 's'} with EtherCAT: every master and slave in OP.`
          : reasons.join('; ');
    return { name: 'ethercat', status, description, data };
  }

  async #cycle(bus: PlcBus): Promise<void> {
    await this.#poll(bus);
    if (!this.#running) return;
    bus.timer = setTimeout(
      () => void this.#cycle(bus),
      etherCatSettings(this.#config, bus.target.id).pollingIntervalMs,
    );
    bus.timer.unref();
  }

  #poll(bus: PlcBus): Promise<EtherCatMasterReading[] | undefined> {
    bus.polling ??= this.#service
      .readAll(bus.target)
      .then(
        (readings) => {
          this.#update(bus, readings);
          return readings;
        },
        () => {
          if (bus.readings && bus.readings.length > 0) bus.failed = true;
          return undefined;
        },
      )
      .finally(() => {
        bus.polling = undefined;
      });
    return bus.polling;
  }

  #update(bus: PlcBus, readings: EtherCatMasterReading[]): void {
    const before = bus.readings;
    bus.readings = readings;
    bus.failed = false;
    const settings = etherCatSettings(this.#config, bus.target.id);
    if (!before || !settings.enableNotifications || bus.listeners.size === 0) return;
    for (const m of readings) {
      const old = before.find((b) => b.deviceId === m.deviceId);
      for (const s of m.slaves) {
        const was = old?.slaves.find((o) => o.address === s.address);
        if (!was || !notable(was, s, settings.crcErrorThreshold)) continue;
        const change: EtherCatChange = { masterId: m.deviceId, address: s.address, slave: slaveView(s) };
        for (const l of [...bus.listeners]) l(change);
      }
    }
  }
}
