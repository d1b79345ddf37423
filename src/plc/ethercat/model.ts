// The EtherCAT vocabulary both sides share: states as text, link states, ports and what one reading of a
// master holds. Codes on the wire are in ./constants.ts, their layouts in ./codec.ts.

export const etherCatStates = ['INIT', 'PREOP', 'BOOT', 'SAFEOP', 'OP'] as const;
export type EtherCatState = (typeof etherCatStates)[number];

/** ok; lost: no communication with the slave; missing: a link the configuration expects is missing. */
export const linkStates = ['ok', 'lost', 'missing'] as const;
export type LinkState = (typeof linkStates)[number];

export const portNames = ['A', 'B', 'C', 'D'] as const;
export type PortName = (typeof portNames)[number];

export type PortCounters = Record<PortName, number>;

/** What a port is connected to: a slave's address, the master, or nothing (open). */
type Neighbour = number | 'master' | null;
export type PortNeighbours = Record<PortName, Neighbour>;

export interface SlaveIdentity {
  vendorId: number;
  productCode: number;
  revision: number;
  serial: number;
}

/** A slave as configured: its place on the bus, its name and what it is. */
export interface EtherCatSlaveInfo extends SlaveIdentity {
  address: number;
  name: string;
  type: string;
}

export interface EtherCatSlaveReading extends EtherCatSlaveInfo {
  state: EtherCatState;
  error: boolean;
  link: LinkState;
  crcErrors: PortCounters;
  ports: PortNeighbours;
}

/** A master as the I/O server lists it. */
export interface EtherCatMasterInfo {
  deviceId: number;
  name: string;
  amsNetId: string;
}

/** One consistent reading of a master and its slaves, in bus order. */
export interface EtherCatMasterReading extends EtherCatMasterInfo {
  currentState: EtherCatState;
  requestedState: EtherCatState;
  slaves: EtherCatSlaveReading[];
}

export const zeroCounters = (): PortCounters => ({ A: 0, B: 0, C: 0, D: 0 });
export const openPorts = (): PortNeighbours => ({ A: null, B: null, C: null, D: null });
