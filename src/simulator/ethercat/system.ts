// The simulated EtherCAT system of one TwinCAT runtime: its masters, their slaves in bus order, states, links,
// CRC counters per port and wiring. Pure state: the scenario script injects faults, the ADS server reads it.
import {
  openPorts,
  portNames,
  zeroCounters,
  type EtherCatMasterReading,
  type EtherCatSlaveInfo,
  type EtherCatState,
  type LinkState,
  type PortCounters,
  type PortName,
  type PortNeighbours,
} from '../../plc/ethercat/index.ts';

export interface SlaveDefinition extends EtherCatSlaveInfo {
  ports?: Partial<Record<PortName, number | 'master'>>;
}

export interface MasterDefinition {
  name: string;
  deviceId: number;
  slaves: SlaveDefinition[];
}

export interface EtherCatDefinition {
  masters: MasterDefinition[];
}

/** A fault or a state change the scenario script injects. `master` picks one when an address is on two. */
export type EtherCatAction =
  | { kind: 'slave-state'; master?: number; slave: number; state: EtherCatState; error: boolean }
  | { kind: 'link'; master?: number; slave: number; link: LinkState; port?: PortName }
  | { kind: 'crc'; master?: number; slave: number; port: PortName; count: number }
  | { kind: 'master-state'; master: number; state: EtherCatState };

export class SimSlave {
  readonly definition: SlaveDefinition;
  /** Position on the bus, 0 first. */
  readonly position: number;
  readonly neighbours: PortNeighbours;
  state: EtherCatState = 'OP';
  error = false;
  link: LinkState = 'ok';
  linkPort: PortName | undefined;
  crc: PortCounters = zeroCounters();

  constructor(definition: SlaveDefinition, position: number) {
    this.definition = definition;
    this.position = position;
    this.neighbours = openPorts();
    for (const p of portNames) this.neighbours[p] = definition.ports?.[p] ?? null;
    // The first slave's port A is wired to the master unless the scenario says otherwise.
    if (position === 0 && definition.ports?.A === undefined) this.neighbours.A = 'master';
  }

  get address(): number {
    return this.definition.address;
  }

  /** A slave without communication answers no datagram. */
  get present(): boolean {
    return this.link !== 'lost';
  }

  reset(): void {
    this.state = 'OP';
    this.error = false;
    this.link = 'ok';
    this.linkPort = undefined;
    this.crc = zeroCounters();
  }
}

export class SimMaster {
  readonly deviceId: number;
  readonly name: string;
  readonly slaves: readonly SimSlave[];
  current: EtherCatState = 'OP';
  requested: EtherCatState = 'OP';
  readonly #byAddress: Map<number, SimSlave>;

  constructor(definition: MasterDefinition) {
    this.deviceId = definition.deviceId;
    this.name = definition.name;
    this.slaves = definition.slaves.map((s, i) => new SimSlave(s, i));
    this.#byAddress = new Map(this.slaves.map((s) => [s.address, s]));
  }

  slave(address: number): SimSlave | undefined {
    return this.#byAddress.get(address);
  }

  reset(): void {
    this.current = 'OP';
    this.requested = 'OP';
    for (const s of this.slaves) s.reset();
  }

  /** The master's view as the port reports it; `netId` is where the master is reached. */
  reading(amsNetId: string): EtherCatMasterReading {
    return {
      deviceId: this.deviceId,
      name: this.name,
      amsNetId,
      currentState: this.current,
      requestedState: this.requested,
      slaves: this.slaves.map((s) => ({
        address: s.address,
        name: s.definition.name,
        type: s.definition.type,
        vendorId: s.definition.vendorId,
        productCode: s.definition.productCode,
        revision: s.definition.revision,
        serial: s.definition.serial,
        state: s.state,
        error: s.error,
        link: s.link,
        crcErrors: { ...s.crc },
        ports: { ...s.neighbours },
      })),
    };
  }
}

export class EtherCatSystem {
  readonly masters: readonly SimMaster[];

  constructor(definition: EtherCatDefinition) {
    this.masters = definition.masters.map((m) => new SimMaster(m));
  }

  master(deviceId: number): SimMaster | undefined {
    return this.masters.find((m) => m.deviceId === deviceId);
  }

  /** Applies a scripted action; throws when it names no such master or slave (validation prevents it). */
  apply(action: EtherCatAction): void {
    if (action.kind === 'master-state') {
      const master = this.master(action.master);
      if (!master) throw new Error(`EtherCAT: no master with deviceId ${action.master}`);
      master.current = action.state;
      return;
    }
    const slave = this.#slave(action.slave, action.master);
    switch (action.kind) {
      case 'slave-state':
        slave.state = action.state;
        slave.error = action.error;
        return;
      case 'link':
        slave.link = action.link;
        slave.linkPort = action.link === 'ok' ? undefined : action.port;
        return;
      case 'crc':
        slave.crc[action.port] = action.count;
        return;
    }
  }

  /** Back to the scenario's seed: every master and slave in OP, links ok, counters zero. */
  reset(): void {
    for (const m of this.masters) m.reset();
  }

  #slave(address: number, deviceId: number | undefined): SimSlave {
    for (const m of this.masters) {
      if (deviceId !== undefined && m.deviceId !== deviceId) continue;
      const s = m.slave(address);
      if (s) return s;
    }
    throw new Error(`EtherCAT: no slave with address ${address}`);
  }
}
