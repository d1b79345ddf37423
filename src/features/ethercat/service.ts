// EtherCAT diagnostics of one PLC: masters with their states, slaves with states, links and CRC counters,
// the wiring, a slave found on any master, and the reset of a slave's error counters. Every reading goes
// through the target's EtherCAT port and is bounded by the target's EtherCat.TimeoutMs.
import type { Config } from '../../config/schema.ts';
import { AppError } from '../../errors.ts';
import type {
  EtherCatMasterInfo,
  EtherCatMasterReading,
  EtherCatSlaveReading,
  EtherCatState,
  LinkState,
  PortCounters,
  PortNeighbours,
} from '../../targets/ethercat-port.ts';
import type { PlcTarget } from '../../targets/target.ts';
import { etherCatSettings } from './settings.ts';

export interface MasterView {
  deviceId: number;
  name: string;
  amsNetId: string;
  currentState: EtherCatState;
  requestedState: EtherCatState;
  slaveCount: number;
}

export interface SlaveView {
  address: number;
  name: string;
  type: string;
  vendorId: number;
  productCode: number;
  revision: number;
  serial: number;
  state: EtherCatState;
  error: boolean;
  link: LinkState;
  crcErrors: PortCounters;
}

export interface WiredSlaveView extends SlaveView {
  ports: PortNeighbours;
}

export interface TopologyView {
  deviceId: number;
  name: string;
  currentState: EtherCatState;
  slaves: WiredSlaveView[];
}

/** A slave with the master it was found on. */
export interface LocatedSlaveView extends WiredSlaveView {
  masterId: number;
}

export function masterView(r: EtherCatMasterReading): MasterView {
  return {
    deviceId: r.deviceId,
    name: r.name,
    amsNetId: r.amsNetId,
    currentState: r.currentState,
    requestedState: r.requestedState,
    slaveCount: r.slaves.length,
  };
}

export function slaveView(s: EtherCatSlaveReading): SlaveView {
  const { ports: _ports, ...view } = s;
  return { ...view, crcErrors: { ...s.crcErrors } };
}

function wired(s: EtherCatSlaveReading): WiredSlaveView {
  return { ...slaveView(s), ports: { ...s.ports } };
}

function within<T>(ms: number, plcId: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError('ADS_TIMEOUT', `PLC '${plcId}' did not answer the EtherCAT reading within ${ms} ms.`),
        ),
      ms,
    );
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export class EtherCatService {
  constructor(private readonly config: Config) {}

  /** Every master of the PLC, each read in full (masters in device id order). */
  async readAll(target: PlcTarget): Promise<EtherCatMasterReading[]> {
    return this.#bounded(target, async () => {
      const masters = await target.etherCat.masters();
      const out: EtherCatMasterReading[] = [];
      for (const m of masters) out.push(await target.etherCat.read(m));
      return out;
    });
  }

  async masters(target: PlcTarget): Promise<MasterView[]> {
    return (await this.readAll(target)).map(masterView);
  }

  async master(target: PlcTarget, deviceId: number): Promise<MasterView> {
    return masterView(await this.#read(target, deviceId));
  }

  async slaves(target: PlcTarget, deviceId: number): Promise<SlaveView[]> {
    return (await this.#read(target, deviceId)).slaves.map(slaveView);
  }

  async topology(target: PlcTarget, deviceId: number): Promise<TopologyView> {
    const r = await this.#read(target, deviceId);
    return { deviceId: r.deviceId, name: r.name, currentState: r.currentState, slaves: r.slaves.map(wired) };
  }

  /** The slave at `address` on any master, or on `masterId` only; 400 when two masters have it and none is named. */
  async slave(target: PlcTarget, address: number, masterId?: number): Promise<LocatedSlaveView> {
    const readings =
      masterId === undefined ? await this.readAll(target) : [await this.#read(target, masterId)];
    return locate(readings, address, masterId);
  }

  /** Clears the slave's CRC counters (the ESC register write) and answers the slave as read afterwards. */
  async resetErrorCounters(target: PlcTarget, address: number, masterId?: number): Promise<LocatedSlaveView> {
    const found = await this.slave(target, address, masterId);
    await this.#bounded(target, async () => {
      const master = await this.#info(target, found.masterId);
      await target.etherCat.resetErrorCounters(master, address);
    });
    return this.slave(target, address, found.masterId);
  }

  async #info(target: PlcTarget, deviceId: number): Promise<EtherCatMasterInfo> {
    const master = (await target.etherCat.masters()).find((m) => m.deviceId === deviceId);
    if (!master)
      throw new AppError('MASTER_NOT_FOUND', `PLC '${target.id}' has no EtherCAT master ${deviceId}.`);
    return master;
  }

  #read(target: PlcTarget, deviceId: number): Promise<EtherCatMasterReading> {
    return this.#bounded(target, async () => target.etherCat.read(await this.#info(target, deviceId)));
  }

  #bounded<T>(target: PlcTarget, fn: () => Promise<T>): Promise<T> {
    return within(etherCatSettings(this.config, target.id).timeoutMs, target.id, fn());
  }
}

function locate(
  readings: readonly EtherCatMasterReading[],
  address: number,
  masterId?: number,
): LocatedSlaveView {
  const hits = readings.flatMap((r) =>
    r.slaves.filter((s) => s.address === address).map((s) => ({ masterId: r.deviceId, ...wired(s) })),
  );
  const [first, second] = hits;
  if (!first) {
    const where = masterId === undefined ? 'any EtherCAT master' : `EtherCAT master ${masterId}`;
    throw new AppError('SLAVE_NOT_FOUND', `No slave with address ${address} on ${where}.`);
  }
  if (second) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Address ${address} is on masters ${hits.map((h) => h.masterId).join(' and ')}: pick one with ?master=.`,
    );
  }
  return first;
}
