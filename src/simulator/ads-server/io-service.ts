// The I/O server (AMS port 300): the device list `adstool ecat list-masters` reads, one entry per simulated
// EtherCAT master (count, ids, then name, type and AMS NetId per device), as Beckhoff's ADS library
// (AdsLib/ECatAccess.cpp) reads it. A system without EtherCAT lists no device.
import { AdsCommand, AdsState, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { EtherCatDeviceType, IoServer, masterNetId } from '../../plc/ethercat/index.ts';
import type { EtherCatSystem, SimMaster } from '../ethercat/system.ts';
import type { AdsRequest, AdsResponse } from './protocol/commands.ts';
import { parseNetId } from './protocol/net-id.ts';

function fit(data: Buffer, length: number, what: string): Buffer {
  if (length < data.length) {
    throw new AdsError(AdsErrorCode.InvalidSize, `${what} needs ${data.length} bytes, ${length} asked`);
  }
  return data;
}

export class IoService {
  constructor(
    private readonly system: EtherCatSystem | undefined,
    private readonly systemNetId: string,
  ) {}

  handle(request: AdsRequest): AdsResponse {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo:
        return { command: request.command, major: 3, minor: 1, build: 4024, name: 'I/O Server' };
      case AdsCommand.ReadState:
        return { command: request.command, adsState: AdsState.Run, deviceState: 0 };
      case AdsCommand.Read:
        return {
          command: request.command,
          data: this.#read(request.indexGroup, request.indexOffset, request.length),
        };
      default:
        throw new AdsError(AdsErrorCode.ServiceNotSupported, 'The I/O server answers reads only');
    }
  }

  #read(group: number, offset: number, length: number): Buffer {
    const masters = this.system?.masters ?? [];
    if (group === IoServer.deviceStateBase) {
      if (offset === IoServer.offsetDeviceCount) {
        const out = Buffer.alloc(4);
        out.writeUInt32LE(masters.length, 0);
        return fit(out, length, 'The device count');
      }
      if (offset === IoServer.offsetDeviceIds) {
        const out = Buffer.alloc(2 * (masters.length + 1));
        out.writeUInt16LE(masters.length, 0);
        masters.forEach((m, i) => out.writeUInt16LE(m.deviceId, 2 * (i + 1)));
        // A shorter buffer gets the ids that fit, as a reader sizing it from the count expects.
        return out.subarray(0, Math.min(out.length, length - (length % 2)));
      }
      throw new AdsError(AdsErrorCode.InvalidIndexOffset, `No device list entry ${offset}`);
    }
    const master = masters.find((m) => m.deviceId === group - IoServer.deviceStateBase);
    if (!master) throw new AdsError(AdsErrorCode.InvalidIndexGroup, `No I/O device in group ${group}`);
    return this.#device(master, offset, length);
  }

  #device(master: SimMaster, offset: number, length: number): Buffer {
    switch (offset) {
      case IoServer.offsetDeviceName: {
        const name = Buffer.from(`${master.name}\0`, 'latin1');
        return name.subarray(0, Math.min(name.length, length));
      }
      case IoServer.offsetDeviceNetId:
        return fit(parseNetId(masterNetId(this.systemNetId, master.deviceId)), length, 'The AMS NetId');
      case IoServer.offsetDeviceType: {
        const out = Buffer.alloc(2);
        out.writeUInt16LE(EtherCatDeviceType.protocol, 0);
        return fit(out, length, 'The device type');
      }
      default:
        throw new AdsError(AdsErrorCode.InvalidIndexOffset, `No device property ${offset}`);
    }
  }
}
