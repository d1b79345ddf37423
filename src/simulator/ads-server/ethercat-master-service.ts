// One simulated EtherCAT master on its own AMS NetId, port 0xFFFF: the index groups of TwinCAT's "EtherCAT:
// ADS Interface" that Tc2_EtherCAT's function blocks read and write (constants in plc/ethercat), and the
// datagram channel Beckhoff's ADS library sends slave register commands through.
import { AdsCommand, AdsState, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import {
  CONFIG_DATA_SIZE,
  decodeDatagram,
  encodeConfigData,
  encodeCrcCounters,
  encodeDatagram,
  encodeIdentity,
  encodeSlaveState,
  encodeTopology,
  etherCatStates,
  MasterGroup,
  MasterStateOffset,
  portNames,
  SLAVE_STATE_SIZE,
  stateCode,
  TOPOLOGY_SIZE,
  type EtherCatState,
} from '../../plc/ethercat/index.ts';
import { exchange, isKnownCommand } from '../ethercat/registers.ts';
import type { SimMaster, SimSlave } from '../ethercat/system.ts';
import type { AdsRequest, AdsResponse } from './protocol/commands.ts';

function u16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16LE(value, 0);
  return out;
}

function fit(data: Buffer, length: number, what: string): Buffer {
  if (length < data.length) {
    throw new AdsError(AdsErrorCode.InvalidSize, `${what} has ${data.length} bytes, ${length} asked`);
  }
  return data;
}

/** Whole records of a per-slave array that fit in `length` (a buffer sized EC_MAX_SLAVES is larger). */
function records(
  master: SimMaster,
  size: number,
  length: number,
  write: (s: SimSlave, out: Buffer, at: number) => void,
): Buffer {
  const count = Math.min(master.slaves.length, Math.floor(length / size));
  if (count === 0 && master.slaves.length > 0) {
    throw new AdsError(AdsErrorCode.InvalidSize, `One record has ${size} bytes, ${length} asked`);
  }
  const out = Buffer.alloc(count * size);
  master.slaves.slice(0, count).forEach((s, i) => write(s, out, i * size));
  return out;
}

/** A requested EtherCAT state: INIT, PREOP, BOOT, SAFEOP or OP; anything else is invalid data. */
function requestedState(code: number): EtherCatState {
  const state = etherCatStates.find((s) => stateCode(s) === code);
  if (!state) throw new AdsError(AdsErrorCode.InvalidData, `${code} is no EtherCAT state`);
  return state;
}

export class EtherCatMasterService {
  constructor(private readonly master: SimMaster) {}

  handle(request: AdsRequest): AdsResponse {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo:
        return {
          command: request.command,
          major: 3,
          minor: 1,
          build: 4024,
          name: this.master.name.slice(0, 15),
        };
      case AdsCommand.ReadState:
        return {
          command: request.command,
          adsState: AdsState.Run,
          deviceState: stateCode(this.master.current),
        };
      case AdsCommand.Read:
        return {
          command: request.command,
          data: this.#read(request.indexGroup, request.indexOffset, request.length),
        };
      case AdsCommand.Write:
        this.#write(request.indexGroup, request.indexOffset, request.data);
        return { command: request.command };
      case AdsCommand.ReadWrite:
        return {
          command: request.command,
          data: this.#readWrite(request.indexGroup, request.readLength, request.data),
        };
      default:
        throw new AdsError(
          AdsErrorCode.ServiceNotSupported,
          'The EtherCAT master does not serve this command',
        );
    }
  }

  #slave(address: number): SimSlave {
    const slave = this.master.slave(address);
    if (!slave) throw new AdsError(AdsErrorCode.InvalidIndexOffset, `No slave with address ${address}`);
    return slave;
  }

  #read(group: number, offset: number, length: number): Buffer {
    const m = this.master;
    switch (group) {
      case MasterGroup.state:
        if (offset === MasterStateOffset.current) return fit(u16(stateCode(m.current)), length, 'The state');
        if (offset === MasterStateOffset.requested)
          return fit(u16(stateCode(m.requested)), length, 'The state');
        throw new AdsError(AdsErrorCode.InvalidIndexOffset, `No master state at offset ${offset}`);
      case MasterGroup.slaveCount:
        return fit(u16(m.slaves.length), length, 'The slave count');
      case MasterGroup.slaveAddresses:
        return records(m, 2, length, (s, out, at) => out.writeUInt16LE(s.address, at));
      case MasterGroup.slaveStates: {
        if (offset === 0)
          return records(m, SLAVE_STATE_SIZE, length, (s, out, at) =>
            encodeSlaveState(s, out, at, s.linkPort),
          );
        const s = this.#slave(offset);
        const out = Buffer.alloc(SLAVE_STATE_SIZE);
        encodeSlaveState(s, out, 0, s.linkPort);
        return fit(out, length, 'A slave state');
      }
      case MasterGroup.slaveIdentity:
        return fit(encodeIdentity(this.#slave(offset).definition), length, 'An identity');
      case MasterGroup.slaveCrc: {
        if (offset !== 0) return fit(encodeCrcCounters(this.#slave(offset).crc), length, 'CRC counters');
        return records(m, 4, length, (s, out, at) =>
          out.writeUInt32LE(portNames.reduce((sum, p) => sum + s.crc[p], 0) >>> 0, at),
        );
      }
      case MasterGroup.configuredSlaves:
        return records(m, CONFIG_DATA_SIZE, length, (s, out, at) =>
          encodeConfigData({ ...s.definition, address: s.address }, out, at),
        );
      case MasterGroup.topology:
        return records(m, TOPOLOGY_SIZE, length, (s, out, at) =>
          encodeTopology(s.address, s.position, s.neighbours).copy(out, at),
        );
      default:
        throw new AdsError(AdsErrorCode.InvalidIndexGroup, `The master has no index group ${group}`);
    }
  }

  #write(group: number, offset: number, data: Buffer): void {
    if (group === MasterGroup.state) {
      const state = requestedState(offset);
      this.master.requested = state;
      this.master.current = state;
      return;
    }
    if (group === MasterGroup.slaveStates && offset !== 0) {
      const slave = this.#slave(offset);
      if (data.length !== 2)
        throw new AdsError(AdsErrorCode.InvalidSize, 'Write the requested state as a u16');
      slave.state = requestedState(data.readUInt16LE(0));
      // The master acknowledges the slave's error on the transition it requested.
      slave.error = false;
      return;
    }
    throw new AdsError(AdsErrorCode.InvalidIndexGroup, `The master takes no write to index group ${group}`);
  }

  #readWrite(group: number, readLength: number, data: Buffer): Buffer {
    if (group !== MasterGroup.datagram) {
      throw new AdsError(
        AdsErrorCode.InvalidIndexGroup,
        `The master takes no read-write on index group ${group}`,
      );
    }
    const d = decodeDatagram(data);
    if (!d) throw new AdsError(AdsErrorCode.InvalidSize, 'The datagram is shorter than its header says');
    if (!isKnownCommand(d.command))
      throw new AdsError(AdsErrorCode.InvalidData, `Datagram command ${d.command} is not served`);
    const answer = encodeDatagram(exchange(this.master, d));
    return answer.subarray(0, Math.min(answer.length, readLength));
  }
}
