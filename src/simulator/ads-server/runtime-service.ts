// The PLC runtime port (851): device info and state, memory, symbols and types, handles, RPC,
// sum commands and notifications, all over the engine's SimulatedPlc.

import { adsStateNames } from '../../plc/ads/constants.ts';
import type { SimulatedPlc } from '../engine/plc.ts';
import { invokeRpc } from './rpc.ts';
import type { NotificationHub, NotificationTarget } from './notification-hub.ts';
import { AdsCommand, AdsState, IndexGroup } from '../../plc/ads/constants.ts';
import type { AdsRequest, AdsResponse } from './protocol/commands.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/error-codes.ts';
import { encodeHandleInfo, encodeUploadInfo } from './protocol/symbol-catalog.ts';
import { SumDispatcher, type IndexGroupAccess } from './sum-dispatcher.ts';
import type { RequestContext } from './session.ts';
import { decodeName, type SymbolService } from './symbol-service.ts';

/** Answers longer than the client's buffer are cut to it, as TwinCAT does (a 4-byte read of 0xF003 is a handle). */
function fit(data: Buffer, length: number): Buffer {
  return data.length <= length ? data : data.subarray(0, length);
}

function wrongService(ig: number): AdsError {
  return new AdsError(
    AdsErrorCode.ServiceNotSupported,
    `Index group 0x${ig.toString(16)} does not support this command`,
  );
}

function unknownGroup(ig: number): AdsError {
  return new AdsError(AdsErrorCode.InvalidIndexGroup, `Unknown index group 0x${ig.toString(16)}`);
}

export class RuntimeService implements IndexGroupAccess {
  readonly #sum: SumDispatcher;

  constructor(
    private readonly plc: SimulatedPlc,
    private readonly symbols: SymbolService,
    private readonly hub: NotificationHub,
    maxSumCommands: number,
  ) {
    this.#sum = new SumDispatcher(this, maxSumCommands);
  }

  handle(request: AdsRequest, ctx: RequestContext): AdsResponse {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo: {
        const info = this.plc.deviceInfo();
        return {
          command: request.command,
          major: info.major,
          minor: info.minor,
          build: info.build,
          name: info.deviceName,
        };
      }
      case AdsCommand.ReadState:
        return { command: request.command, ...this.state() };
      case AdsCommand.WriteControl:
        this.#writeControl(request.adsState);
        return { command: request.command };
      case AdsCommand.Read:
        return {
          command: request.command,
          data: this.read(request.indexGroup, request.indexOffset, request.length, ctx),
        };
      case AdsCommand.Write:
        this.write(request.indexGroup, request.indexOffset, request.data, ctx);
        return { command: request.command };
      case AdsCommand.ReadWrite:
        return {
          command: request.command,
          data: this.readWrite(
            request.indexGroup,
            request.indexOffset,
            request.readLength,
            request.data,
            ctx,
          ),
        };
      case AdsCommand.AddNotification:
        return {
          command: request.command,
          handle: this.hub.add(ctx, request, this.#notificationTarget(request, ctx)),
        };
      case AdsCommand.DeleteNotification:
        this.hub.delete(ctx.session, request.handle);
        return { command: request.command };
    }
  }

  state(): { adsState: number; deviceState: number } {
    return { adsState: adsStateNames.indexOf(this.plc.adsState), deviceState: 0 };
  }

  #writeControl(adsState: number): void {
    if (adsState === AdsState.Run) this.plc.setState('Run');
    else if (adsState === AdsState.Stop) this.plc.setState('Stop');
    else if (adsState === AdsState.Reset) this.plc.setState('Reset');
    else
      throw new AdsError(
        AdsErrorCode.ServiceNotSupported,
        `The PLC runtime cannot be set to ADS state ${adsState}`,
      );
  }

  #memory(offset: number, length: number): Buffer {
    const memory = this.plc.memory;
    if (offset >= memory.length && length > 0) {
      throw new AdsError(AdsErrorCode.InvalidIndexOffset, `Offset ${offset} is outside the data area`);
    }
    if (offset + length > memory.length) {
      throw new AdsError(AdsErrorCode.InvalidSize, `${length} bytes at ${offset} exceed the data area`);
    }
    return memory.subarray(offset, offset + length);
  }

  read(ig: number, io: number, length: number, ctx: RequestContext): Buffer {
    switch (ig) {
      case IndexGroup.PlcMemory:
        return Buffer.from(this.#memory(io, length));
      case IndexGroup.SymbolValueByHandle: {
        const target = ctx.session.handles.get(io, this.plc.symbolVersion);
        if (target.kind !== 'variable') throw wrongService(ig);
        return Buffer.from(this.#memory(target.offset, Math.min(length, target.size)));
      }
      case IndexGroup.SymbolVersion:
        return fit(Buffer.from([this.plc.symbolVersion]), length);
      case IndexGroup.SymbolUpload:
        return fit(this.symbols.catalog().symbolUpload, length);
      case IndexGroup.DataTypeUpload:
        return fit(this.symbols.catalog().dataTypeUpload, length);
      case IndexGroup.SymbolUploadInfo2:
        return fit(encodeUploadInfo(this.symbols.catalog()), length);
      case IndexGroup.SymbolUploadInfo:
        return fit(encodeUploadInfo(this.symbols.catalog()).subarray(0, 8), length);
      case IndexGroup.DeviceData: {
        const out = Buffer.alloc(4);
        const { adsState, deviceState } = this.state();
        out.writeUInt16LE(adsState, 0);
        out.writeUInt16LE(deviceState, 2);
        return fit(out, length);
      }
      case IndexGroup.SymbolHandleByName:
      case IndexGroup.SymbolValueByName:
      case IndexGroup.SymbolInfoByNameEx:
      case IndexGroup.DataTypeInfoByNameEx:
      case IndexGroup.SumRead:
      case IndexGroup.SumWrite:
      case IndexGroup.SumReadWrite:
      case IndexGroup.SymbolReleaseHandle:
        throw wrongService(ig);
      default:
        throw unknownGroup(ig);
    }
  }

  write(ig: number, io: number, data: Buffer, ctx: RequestContext): void {
    switch (ig) {
      case IndexGroup.PlcMemory:
        this.#memory(io, data.length);
        this.plc.writeRaw(io, data);
        return;
      case IndexGroup.SymbolValueByHandle: {
        const target = ctx.session.handles.get(io, this.plc.symbolVersion);
        if (target.kind !== 'variable') throw wrongService(ig);
        if (data.length > target.size) {
          throw new AdsError(
            AdsErrorCode.InvalidSize,
            `${target.path} holds ${target.size} bytes, got ${data.length}`,
          );
        }
        this.plc.writeRaw(target.offset, data);
        return;
      }
      case IndexGroup.SymbolReleaseHandle:
        // The handle travels in the data (ads-client) or, with no data, in the index offset.
        ctx.session.handles.release(data.length >= 4 ? data.readUInt32LE(0) : io);
        return;
      case IndexGroup.SymbolVersion:
      case IndexGroup.SymbolUpload:
      case IndexGroup.DataTypeUpload:
      case IndexGroup.SymbolUploadInfo:
      case IndexGroup.SymbolUploadInfo2:
      case IndexGroup.SymbolHandleByName:
      case IndexGroup.SymbolInfoByNameEx:
      case IndexGroup.DataTypeInfoByNameEx:
      case IndexGroup.DeviceData:
        throw wrongService(ig);
      default:
        throw unknownGroup(ig);
    }
  }

  readWrite(ig: number, io: number, readLength: number, data: Buffer, ctx: RequestContext): Buffer {
    switch (ig) {
      case IndexGroup.SymbolHandleByName: {
        const target = this.symbols.handleTarget(decodeName(data));
        const handle = ctx.session.handles.create(target);
        const info =
          target.kind === 'variable'
            ? encodeHandleInfo(handle, target.size, target.typeName)
            : encodeHandleInfo(
                handle,
                target.method.returnType?.size ?? 0,
                target.method.returnType?.name ?? '',
              );
        return fit(info, readLength);
      }
      case IndexGroup.SymbolValueByName: {
        const r = this.symbols.resolve(decodeName(data));
        return Buffer.from(this.#memory(r.offset, Math.min(readLength, r.size)));
      }
      case IndexGroup.SymbolInfoByNameEx:
        return fit(this.symbols.symbolInfo(decodeName(data)), readLength);
      case IndexGroup.DataTypeInfoByNameEx:
        return fit(this.symbols.dataTypeInfo(decodeName(data)), readLength);
      case IndexGroup.SymbolValueByHandle: {
        const target = ctx.session.handles.get(io, this.plc.symbolVersion);
        if (target.kind !== 'method') throw wrongService(ig);
        return invokeRpc(this.plc, target, data, readLength);
      }
      case IndexGroup.SumRead:
        return this.#sum.read(io, data, ctx);
      case IndexGroup.SumWrite:
        return this.#sum.write(io, data, ctx);
      case IndexGroup.SumReadWrite:
        return this.#sum.readWrite(io, data, ctx);
      case IndexGroup.PlcMemory:
      case IndexGroup.SymbolReleaseHandle:
      case IndexGroup.SymbolVersion:
      case IndexGroup.SymbolUpload:
      case IndexGroup.DataTypeUpload:
      case IndexGroup.SymbolUploadInfo:
      case IndexGroup.SymbolUploadInfo2:
      case IndexGroup.DeviceData:
        throw wrongService(ig);
      default:
        throw unknownGroup(ig);
    }
  }

  #notificationTarget(request: Extract<AdsRequest, { command: 6 }>, ctx: RequestContext): NotificationTarget {
    const { indexGroup: ig, indexOffset: io, length } = request;
    switch (ig) {
      case IndexGroup.PlcMemory:
        this.#memory(io, length);
        return { kind: 'memory', offset: io, size: length };
      case IndexGroup.SymbolValueByHandle: {
        const target = ctx.session.handles.get(io, this.plc.symbolVersion);
        if (target.kind !== 'variable') throw wrongService(ig);
        return { kind: 'memory', offset: target.offset, size: Math.min(length, target.size) };
      }
      case IndexGroup.SymbolVersion:
        return { kind: 'symbolVersion' };
      case IndexGroup.DeviceData:
        return { kind: 'state' };
      default:
        throw new AdsError(
          AdsErrorCode.InvalidIndexGroup,
          `Notifications on index group 0x${ig.toString(16)} are not supported`,
        );
    }
  }
}
