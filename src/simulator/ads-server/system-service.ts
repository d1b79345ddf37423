// The TwinCAT system service (port 10000): device info, system state (plain and extended),
// start/restart/config through WriteControl, the shared-cores setting and the file services.

import type { SimulatedPlc } from '../engine/index.ts';
import type { FileService } from './file-service.ts';
import type { RealtimeService } from './realtime-service.ts';
import { AdsCommand, AdsState, IndexGroup, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { deviceInfoResponse, type AdsRequest, type AdsResponse } from './protocol/commands.ts';
import type { RequestContext } from './client-session.ts';
import { invalidNotificationHandle } from './notification-hub.ts';

const EXTENDED_STATE_LENGTH = 16;
/** Reported platform and OS ids of the extended state (x64, Windows NT). */
const PLATFORM_X64 = 2;
const OS_WINDOWS = 4;

export class SystemService {
  #restartIndex = 0;
  #config = false;

  constructor(
    private readonly plc: SimulatedPlc,
    private readonly files: FileService,
    private readonly realtime: () => RealtimeService,
  ) {}

  /** False in config mode: the PLC runtime port is then unreachable, as on a real system. */
  get running(): boolean {
    return !this.#config;
  }

  handle(request: AdsRequest, ctx: RequestContext): AdsResponse | Promise<AdsResponse> {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo:
        return deviceInfoResponse(this.plc.deviceInfo(), 'TwinCAT System');
      case AdsCommand.ReadState:
        return { command: request.command, adsState: this.#state(), deviceState: 0 };
      case AdsCommand.WriteControl:
        this.#writeControl(request.adsState);
        return { command: request.command };
      case AdsCommand.Read:
        if (request.indexGroup === IndexGroup.SystemExtendedState) {
          if (request.length < EXTENDED_STATE_LENGTH) {
            throw new AdsError(
              AdsErrorCode.InvalidSize,
              `The extended state has ${EXTENDED_STATE_LENGTH} bytes`,
            );
          }
          return { command: request.command, data: this.#extendedState() };
        }
        return this.#file(request.indexGroup, request.indexOffset, request.length, Buffer.alloc(0), ctx).then(
          (data) => ({
            command: AdsCommand.Read,
            data,
          }),
        );
      case AdsCommand.Write:
        if (request.indexGroup === IndexGroup.SetNumProc) {
          if (request.data.length !== 4)
            throw new AdsError(AdsErrorCode.InvalidSize, 'Write a u32 core count');
          this.realtime().setSharedCores(request.data.readUInt32LE(0));
          return { command: request.command };
        }
        return this.#file(request.indexGroup, request.indexOffset, 0, request.data, ctx).then(() => ({
          command: AdsCommand.Write,
        }));
      case AdsCommand.ReadWrite:
        return this.#file(
          request.indexGroup,
          request.indexOffset,
          request.readLength,
          request.data,
          ctx,
        ).then((data) => ({ command: AdsCommand.ReadWrite, data }));
      case AdsCommand.AddNotification:
        throw new AdsError(AdsErrorCode.ServiceNotSupported, 'The system service offers no notifications');
      case AdsCommand.DeleteNotification:
        throw invalidNotificationHandle(request.handle);
    }
  }

  #state(): number {
    return this.#config ? AdsState.Config : AdsState.Run;
  }

  /** Reset/Run restarts TwinCAT into run mode; Reconfig/Config switches to config mode (PLC stopped). */
  #writeControl(adsState: number): void {
    if (adsState === AdsState.Reset || adsState === AdsState.Run) {
      this.#restart(false);
      this.plc.setState('Run');
    } else if (adsState === AdsState.Reconfig || adsState === AdsState.Config) {
      this.#restart(true);
      this.plc.setState('Stop');
    } else {
      throw new AdsError(
        AdsErrorCode.ServiceNotSupported,
        `The system cannot be set to ADS state ${adsState}`,
      );
    }
  }

  #restart(config: boolean): void {
    this.#config = config;
    // Clients watch this counter to notice a restart that did not drop their TCP connection.
    this.#restartIndex = (this.#restartIndex + 1) & 0xffff;
  }

  #extendedState(): Buffer {
    const info = this.plc.deviceInfo();
    const out = Buffer.alloc(EXTENDED_STATE_LENGTH);
    out.writeUInt16LE(this.#state(), 0);
    out.writeUInt16LE(0, 2);
    out.writeUInt16LE(this.#restartIndex, 4);
    out.writeUInt8(info.major & 0xff, 6);
    out.writeUInt8(info.minor & 0xff, 7);
    out.writeUInt16LE(info.build & 0xffff, 8);
    out.writeUInt8(PLATFORM_X64, 10);
    out.writeUInt8(OS_WINDOWS, 11);
    return out;
  }

  async #file(
    ig: number,
    io: number,
    readLength: number,
    data: Buffer,
    ctx: RequestContext,
  ): Promise<Buffer> {
    if (!this.files.handles(ig)) {
      throw new AdsError(
        AdsErrorCode.ServiceNotSupported,
        `Index group 0x${ig.toString(16)} is not served by the system service`,
      );
    }
    return this.files.call(ig, io, readLength, data, ctx.session);
  }
}
