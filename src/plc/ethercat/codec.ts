// Byte layouts of the EtherCAT master's ADS answers (little-endian), encoded by the simulator and decoded by
// the ADS driver. Struct layouts follow Tc2_EtherCAT's documented types; the source of each is named below.
import { cp1252Byte, decodeCp1252 } from '../cp1252.ts';
import {
  DATAGRAM_HEADER_LENGTH,
  DatagramCommand,
  EC_STATE_ERROR,
  EC_STATE_MASK,
  EcStateCode,
  EscRegister,
  LinkBits,
} from './constants.ts';
import {
  etherCatStates,
  openPorts,
  portNames,
  type EtherCatState,
  type LinkState,
  type PortCounters,
  type PortName,
  type PortNeighbours,
  type SlaveIdentity,
} from './model.ts';

/** The code of a state (EC_DEVICE_STATE_*). */
export function stateCode(state: EtherCatState): number {
  return EcStateCode[state];
}

/**
 * The state of a code's low nibble. The ADS Interface table lists Init as 0 for the master and
 * EC_DEVICE_STATE_INIT is 1: both read as INIT, as does any code that is no state.
 */
export function stateOf(code: number): EtherCatState {
  const low = code & EC_STATE_MASK;
  return etherCatStates.find((s) => EcStateCode[s] === low) ?? 'INIT';
}

const portBit: Record<PortName, number> = {
  A: LinkBits.portA,
  B: LinkBits.portB,
  C: LinkBits.portC,
  D: LinkBits.portD,
};

/** ST_EcSlaveState.linkState: lost is EC_LINK_STATE_NOT_PRESENT, missing EC_LINK_STATE_MISSING_LINK (+ port). */
function linkCode(link: LinkState, port?: PortName): number {
  if (link === 'ok') return 0;
  const at = port ? portBit[port] : 0;
  return link === 'lost' ? LinkBits.notPresent | at : LinkBits.missingLink | at;
}

function linkOf(code: number): LinkState {
  if ((code & (LinkBits.notPresent | LinkBits.withoutCommunication)) !== 0) return 'lost';
  if ((code & LinkBits.missingLink) !== 0) return 'missing';
  return 'ok';
}

export interface SlaveStateBytes {
  state: EtherCatState;
  error: boolean;
  link: LinkState;
}

/** ST_EcSlaveState { deviceState: BYTE; linkState: BYTE } (Tc2_EtherCAT): 2 bytes. */
export const SLAVE_STATE_SIZE = 2;

export function encodeSlaveState(s: SlaveStateBytes, out: Buffer, at: number, linkPort?: PortName): void {
  out.writeUInt8(stateCode(s.state) | (s.error ? EC_STATE_ERROR : 0), at);
  out.writeUInt8(linkCode(s.link, linkPort), at + 1);
}

export function decodeSlaveState(data: Buffer, at: number): SlaveStateBytes {
  const device = data.readUInt8(at);
  return {
    state: stateOf(device),
    error: (device & EC_STATE_ERROR) !== 0,
    link: linkOf(data.readUInt8(at + 1)),
  };
}

/** CRC counters of one slave: u32 per port A, B, C, D (ST_EcCrcErrorEx, ADS Interface IG 0x12). */
export const CRC_COUNTERS_SIZE = 16;

export function encodeCrcCounters(c: PortCounters): Buffer {
  const out = Buffer.alloc(CRC_COUNTERS_SIZE);
  portNames.forEach((p, i) => out.writeUInt32LE(c[p] >>> 0, i * 4));
  return out;
}

export function decodeCrcCounters(data: Buffer): PortCounters {
  const [A, B, C, D] = portNames.map((_, i) => (data.length >= i * 4 + 4 ? data.readUInt32LE(i * 4) : 0));
  return { A: A ?? 0, B: B ?? 0, C: C ?? 0, D: D ?? 0 };
}

/** ST_EcSlaveIdentity: u32 vendor id, product code, revision number, serial number. */
const IDENTITY_SIZE = 16;

function writeIdentity(id: SlaveIdentity, out: Buffer, at: number): void {
  out.writeUInt32LE(id.vendorId >>> 0, at);
  out.writeUInt32LE(id.productCode >>> 0, at + 4);
  out.writeUInt32LE(id.revision >>> 0, at + 8);
  out.writeUInt32LE(id.serial >>> 0, at + 12);
}

function readIdentity(data: Buffer, at: number): SlaveIdentity {
  return {
    vendorId: data.readUInt32LE(at),
    productCode: data.readUInt32LE(at + 4),
    revision: data.readUInt32LE(at + 8),
    serial: data.readUInt32LE(at + 12),
  };
}

export function encodeIdentity(id: SlaveIdentity): Buffer {
  const out = Buffer.alloc(IDENTITY_SIZE);
  writeIdentity(id, out, 0);
  return out;
}

/**
 * ST_EcSlaveConfigData (Tc2_EtherCAT): nEntries WORD, nAddr WORD, sType STRING[15], sName STRING[31],
 * nDevType DWORD, stSlaveIdentity, nMailboxOutSize WORD, nMailboxInSize WORD, nLinkStatus BYTE, byte-packed
 * (77 bytes; the packing is not documented).
 */
export const CONFIG_DATA_SIZE = 77;
const TYPE_LENGTH = 16;
const NAME_LENGTH = 32;

export interface SlaveConfigData extends SlaveIdentity {
  address: number;
  type: string;
  name: string;
}

function writeString(text: string, out: Buffer, at: number, length: number): void {
  let i = 0;
  for (const ch of text) {
    if (i >= length - 1) break;
    out[at + i++] = cp1252Byte(ch.codePointAt(0) ?? 0x3f) ?? 0x3f;
  }
}

export function encodeConfigData(c: SlaveConfigData, out: Buffer, at: number): void {
  out.writeUInt16LE(8, at);
  out.writeUInt16LE(c.address, at + 2);
  writeString(c.type, out, at + 4, TYPE_LENGTH);
  writeString(c.name, out, at + 20, NAME_LENGTH);
  writeIdentity(c, out, at + 56);
}

export function decodeConfigData(data: Buffer, at: number): SlaveConfigData {
  return {
    address: data.readUInt16LE(at + 2),
    type: decodeCp1252(data, at + 4, at + 4 + TYPE_LENGTH),
    name: decodeCp1252(data, at + 20, at + 20 + NAME_LENGTH),
    ...readIdentity(data, at + 56),
  };
}

/**
 * ST_TopologyDataEx (Tc2_EtherCAT, 64 bytes): nOwnPhysicalAddr UINT, nOwnAutoIncAddr UINT, stPhysicalAddr
 * ST_PortAddr (UINT per port A-D), stAutoIncAddr ST_PortAddr, then reserved and status words. An open port
 * is 0; the master at a port is 0xFFFF (not documented).
 */
export const TOPOLOGY_SIZE = 64;
const MASTER_AT_PORT = 0xffff;

export function encodeTopology(address: number, position: number, ports: PortNeighbours): Buffer {
  const out = Buffer.alloc(TOPOLOGY_SIZE);
  out.writeUInt16LE(address, 0);
  out.writeUInt16LE((0x10000 - position) & 0xffff, 2);
  portNames.forEach((p, i) => {
    const n = ports[p];
    out.writeUInt16LE(n === null ? 0 : n === 'master' ? MASTER_AT_PORT : n, 4 + i * 2);
  });
  return out;
}

export function decodeTopology(data: Buffer, at: number): { address: number; ports: PortNeighbours } {
  const ports = openPorts();
  portNames.forEach((p, i) => {
    const n = data.readUInt16LE(at + 4 + i * 2);
    ports[p] = n === 0 ? null : n === MASTER_AT_PORT ? 'master' : n;
  });
  return { address: data.readUInt16LE(at), ports };
}

/** ETYPE_EC_HEADER (Beckhoff ADS library, ECatAccess.cpp), then `length` data bytes and the u16 working counter. */
export interface Datagram {
  command: number;
  index: number;
  /** Position (auto-increment: 0, -1, ...) or configured address, by command. */
  adp: number;
  /** Register offset in the slave controller. */
  ado: number;
  data: Buffer;
  workingCounter: number;
}

export function encodeDatagram(d: Datagram): Buffer {
  const out = Buffer.alloc(DATAGRAM_HEADER_LENGTH + d.data.length + 2);
  out.writeUInt8(d.command, 0);
  out.writeUInt8(d.index, 1);
  out.writeUInt16LE(d.adp & 0xffff, 2);
  out.writeUInt16LE(d.ado & 0xffff, 4);
  out.writeUInt16LE(d.data.length, 6);
  d.data.copy(out, DATAGRAM_HEADER_LENGTH);
  out.writeUInt16LE(d.workingCounter & 0xffff, DATAGRAM_HEADER_LENGTH + d.data.length);
  return out;
}

/** FPWR to the slave's RX error counter registers: the write that clears them all (ESC register description). */
export function counterResetDatagram(address: number): Datagram {
  return {
    command: DatagramCommand.FPWR,
    index: 0,
    adp: address,
    ado: EscRegister.rxErrorCounters,
    data: Buffer.alloc(EscRegister.rxErrorCountersEnd - EscRegister.rxErrorCounters),
    workingCounter: 0,
  };
}

/** Undefined when `frame` is shorter than its header says. */
export function decodeDatagram(frame: Buffer): Datagram | undefined {
  if (frame.length < DATAGRAM_HEADER_LENGTH) return undefined;
  const length = frame.readUInt16LE(6) & 0x7ff;
  if (frame.length < DATAGRAM_HEADER_LENGTH + length) return undefined;
  const wkcAt = DATAGRAM_HEADER_LENGTH + length;
  return {
    command: frame.readUInt8(0),
    index: frame.readUInt8(1),
    adp: frame.readUInt16LE(2),
    ado: frame.readUInt16LE(4),
    data: Buffer.from(frame.subarray(DATAGRAM_HEADER_LENGTH, wkcAt)),
    workingCounter: frame.length >= wkcAt + 2 ? frame.readUInt16LE(wkcAt) : 0,
  };
}

/** The master's NetId on a system: the system's first four octets, then `deviceId + 1` and 1. */
export function masterNetId(systemNetId: string, deviceId: number): string {
  const head = systemNetId.split('.').slice(0, 4).join('.');
  return `${head}.${(deviceId + 1) & 0xff}.1`;
}
