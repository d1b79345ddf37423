// The real-time service (AMS port 200): device info, state, CPU settings and latency figures, as
// `adstool <target> rtime read-latency | reset-latency | set-shared-cores` reads them. Layouts as
// Beckhoff's ADS library declares them (AdsLib/RTimeAccess.h: RTimeCpuSettings, 32 bytes, and
// RTimeCpuLatency, 12 bytes; index group ADSSRVID_READDEVICEINFO = 1, offsets RTIME_CPU_SETTINGS 0xd,
// RTIME_READ_LATENCY 0x2, RTIME_RESET_LATENCY 0xb with the CPU id written as a u32).

import { AdsCommand, AdsState, RealtimeOffset, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import type { AdsRequest, AdsResponse } from './protocol/commands.ts';
import { invalidNotificationHandle } from './notification-hub.ts';

const CPU_SETTINGS_LENGTH = 32;
const LATENCY_LENGTH = 12;
/** Index group of the real-time service's queries (ADSSRVID_READDEVICEINFO in Beckhoff's library). */
const REALTIME_GROUP = 1;
/** Shared-cores value that gives every core back to the operating system (AdsLib RTimeAccess.cpp). */
const ALL_CORES_SHARED = 0xffffffff;

/** The figures a quiet 4-core x64 system reports: one real-time core, a few microseconds of latency. */
export interface RealtimeSettings {
  cpuCount: number;
  /** Cores the operating system keeps (the rest are isolated for TwinCAT). */
  sharedCpus: number;
  /** Bit per core that runs real-time tasks. */
  rtAffinityMask: bigint;
  cpuType: number;
  cpuFamily: number;
  /** MHz. */
  cpuFrequency: number;
  /** Latency figures in microseconds: the current value, and the limit the system warns above. */
  latencyUs: { current: number; maximum: number; limit: number };
}

export function quietRealtimeSettings(): RealtimeSettings {
  return {
    cpuCount: 4,
    sharedCpus: 4,
    rtAffinityMask: 0x1n,
    cpuType: 0x906ea,
    cpuFamily: 0x6,
    cpuFrequency: 2400,
    latencyUs: { current: 2, maximum: 9, limit: 100 },
  };
}

export class RealtimeService {
  readonly #settings: RealtimeSettings;
  readonly #maximum = new Map<number, number>();

  constructor(
    settings: RealtimeSettings,
    private readonly systemRunning: () => boolean,
  ) {
    this.#settings = { ...settings, latencyUs: { ...settings.latencyUs } };
  }

  /** SYSTEMSERVICE_SETNUMPROC (port 10000): cores left to the operating system; the rest are isolated. */
  setSharedCores(count: number): void {
    const total = this.#settings.cpuCount;
    if (count === ALL_CORES_SHARED) {
      this.#settings.sharedCpus = total;
      return;
    }
    if (!Number.isInteger(count) || count < 1 || count > total) {
      throw new AdsError(AdsErrorCode.InvalidData, `Shared cores must be 1..${total} or 0xffffffff`);
    }
    this.#settings.sharedCpus = count;
  }

  handle(request: AdsRequest): AdsResponse {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo:
        // The name a TwinCAT 3.1 user-mode runtime reports on port 200.
        return { command: request.command, major: 3, minor: 1, build: 4024, name: 'RTime(Um)' };
      case AdsCommand.ReadState:
        return {
          command: request.command,
          adsState: this.systemRunning() ? AdsState.Run : AdsState.Config,
          deviceState: 0,
        };
      case AdsCommand.Read:
        this.#checkGroup(request.indexGroup);
        if (request.indexOffset !== RealtimeOffset.CpuSettings) throw unknownOffset(request.indexOffset);
        return { command: request.command, data: this.#cpuSettings(request.length) };
      case AdsCommand.ReadWrite: {
        this.#checkGroup(request.indexGroup);
        const { indexOffset: io } = request;
        if (io !== RealtimeOffset.ReadLatency && io !== RealtimeOffset.ResetLatency) throw unknownOffset(io);
        return { command: request.command, data: this.#latency(request, io === RealtimeOffset.ResetLatency) };
      }
      case AdsCommand.Write:
      case AdsCommand.WriteControl:
      case AdsCommand.AddNotification:
        throw new AdsError(AdsErrorCode.ServiceNotSupported, 'The real-time service does not offer this');
      case AdsCommand.DeleteNotification:
        throw invalidNotificationHandle(request.handle);
    }
  }

  #checkGroup(ig: number): void {
    if (ig !== REALTIME_GROUP) {
      throw new AdsError(AdsErrorCode.ServiceNotSupported, `Index group 0x${ig.toString(16)} is not served`);
    }
  }

  #cpuSettings(length: number): Buffer {
    if (length < CPU_SETTINGS_LENGTH) {
      throw new AdsError(AdsErrorCode.InvalidSize, `The CPU settings have ${CPU_SETTINGS_LENGTH} bytes`);
    }
    const s = this.#settings;
    const out = Buffer.alloc(CPU_SETTINGS_LENGTH);
    out.writeUInt32LE(s.sharedCpus, 0);
    out.writeUInt32LE(s.cpuCount - s.sharedCpus, 4);
    out.writeBigUInt64LE(s.rtAffinityMask, 8);
    out.writeUInt32LE(countBits(s.rtAffinityMask), 16);
    out.writeUInt32LE(s.cpuType, 20);
    out.writeUInt32LE(s.cpuFamily, 24);
    out.writeUInt32LE(s.cpuFrequency, 28);
    return out;
  }

  /** Current, maximum and limit of one real-time core; a reset answers the old maximum, then starts over. */
  #latency(request: Extract<AdsRequest, { command: 9 }>, reset: boolean): Buffer {
    if (request.readLength < LATENCY_LENGTH) {
      throw new AdsError(AdsErrorCode.InvalidSize, `The latency figures have ${LATENCY_LENGTH} bytes`);
    }
    if (request.data.length !== 4) {
      throw new AdsError(AdsErrorCode.InvalidSize, 'The latency query writes a u32 CPU id');
    }
    const cpu = request.data.readUInt32LE(0);
    if (cpu >= 64 || (this.#settings.rtAffinityMask & (1n << BigInt(cpu))) === 0n) {
      throw new AdsError(AdsErrorCode.InvalidData, `CPU ${cpu} runs no real-time tasks`);
    }
    const { current, maximum, limit } = this.#settings.latencyUs;
    const out = Buffer.alloc(LATENCY_LENGTH);
    out.writeUInt32LE(current, 0);
    out.writeUInt32LE(this.#maximum.get(cpu) ?? maximum, 4);
    out.writeUInt32LE(limit, 8);
    if (reset) this.#maximum.set(cpu, current);
    return out;
  }
}

function unknownOffset(io: number): AdsError {
  return new AdsError(AdsErrorCode.InvalidIndexOffset, `Index offset 0x${io.toString(16)} is not served`);
}

function countBits(mask: bigint): number {
  let n = 0;
  for (let m = mask; m > 0n; m >>= 1n) n += Number(m & 1n);
  return n;
}
