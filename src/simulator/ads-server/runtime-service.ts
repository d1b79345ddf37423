// The PLC runtime port (851): device info and state, memory, symbols and types, handles, RPC,
// sum commands and notifications, all over the engine's SimulatedPlc.

import {
  adsStateNames,
  AdsCommand,
  AdsState,
  IndexGroup,
  AdsError,
  AdsErrorCode,
} from '../../plc/ads/index.ts';
import type { SimulatedPlc } from '../engine/index.ts';
import { MemoryAreas } from './memory-areas.ts';
import { invokeRpc } from './rpc.ts';
import type { NotificationHub, NotificationTarget } from './notification-hub.ts';
import { deviceInfoResponse, type AdsRequest, type AdsResponse } from './protocol/commands.ts';
import { encodeHandleInfo, encodeUploadInfo } from './protocol/symbol-catalog.ts';
import type { HandleRegistry, HandleTable } from './handle-registry.ts';
import type { HandleTarget } from './symbol-service.ts';
import { SumDispatcher, type IndexGroupAccess } from './sum-dispatcher.ts';
import type { RequestContext } from './client-session.ts';
import { decodeName, type SymbolService } from './symbol-service.ts';

/** An answer that only makes sense whole (entries, uploads): a shorter buffer is 1797, as TwinCAT answers. */
function whole(data: Buffer, length: number, what: string): Buffer {
  if (length < data.length) {
    throw new AdsError(
      AdsErrorCode.InvalidSize,
      `${what} needs ${data.length} bytes, buffer holds ${length}`,
    );
  }
  return data;
}

/** Answers longer than the client's buffer are cut to it, as TwinCAT does (a 4-byte read of 0xF003 is a handle). */
function fit(data: Buffer, length: number, minimum: number, what: string): Buffer {
  whole(data.subarray(0, minimum), length, what);
  return data.length <= length ? data : data.subarray(0, length);
}

/** The symbol, upload, sum and device-state groups of the runtime port (memory areas are MemoryAreas'). */
const runtimeGroups: ReadonlySet<number> = new Set([
  IndexGroup.SymbolHandleByName,
  IndexGroup.SymbolValueByName,
  IndexGroup.SymbolValueByHandle,
  IndexGroup.SymbolReleaseHandle,
  IndexGroup.SymbolVersion,
  IndexGroup.SymbolInfoByNameEx,
  IndexGroup.SymbolUpload,
  IndexGroup.SymbolUploadInfo,
  IndexGroup.DataTypeUpload,
  IndexGroup.SymbolUploadInfo2,
  IndexGroup.DataTypeInfoByNameEx,
  IndexGroup.SumRead,
  IndexGroup.SumWrite,
  IndexGroup.SumReadWrite,
  IndexGroup.DeviceData,
]);

function wrongService(ig: number): AdsError {
  return new AdsError(
    AdsErrorCode.ServiceNotSupported,
    `Index group 0x${ig.toString(16)} does not support this command`,
  );
}

/**
 * A group the command does not serve. TwinCAT answers 0x701 (service not supported), not 0x702, for a group it
 * does not serve at all as well; the message tells the two apart.
 */
function notServed(ig: number): AdsError {
  return runtimeGroups.has(ig)
    ? wrongService(ig)
    : new AdsError(AdsErrorCode.ServiceNotSupported, `Index group 0x${ig.toString(16)} is not served`);
}

/** Upload info layouts by buffer size: 0xF00C answers 8 bytes; 0xF00F 24 (version 2) or 64 (version 3). */
function uploadInfo(info: Buffer, length: number, sizes: readonly number[]): Buffer {
  const size = [...sizes].reverse().find((n) => n <= length) ?? sizes[0] ?? 0;
  return whole(info.subarray(0, size), length, 'The upload info');
}

export class RuntimeService implements IndexGroupAccess {
  readonly #sum: SumDispatcher;
  readonly #areas: MemoryAreas;

  constructor(
    private readonly plc: SimulatedPlc,
    private readonly symbols: SymbolService,
    private readonly hub: NotificationHub,
    private readonly handles: HandleRegistry,
    maxSumCommands: number,
  ) {
    this.#sum = new SumDispatcher(this, maxSumCommands);
    this.#areas = new MemoryAreas(plc);
  }

  handle(request: AdsRequest, ctx: RequestContext): AdsResponse {
    switch (request.command) {
      case AdsCommand.ReadDeviceInfo: {
        const info = this.plc.deviceInfo();
        return deviceInfoResponse(info, info.deviceName);
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

  /** Bytes of a resolved variable (handles and names always point inside the memory image). */
  #bytes(offset: number, length: number): Buffer {
    return Buffer.from(this.plc.memory.subarray(offset, offset + length));
  }

  read(ig: number, io: number, length: number, ctx: RequestContext): Buffer {
    if (this.#areas.serves(ig)) return this.#areas.read(ig, io, length);
    switch (ig) {
      case IndexGroup.SymbolValueByHandle: {
        const target = this.#handle(io, ctx);
        if (target.kind !== 'variable') throw wrongService(ig);
        return this.#bytes(target.offset, Math.min(length, target.size));
      }
      case IndexGroup.SymbolVersion:
        return whole(Buffer.from([this.plc.symbolVersion]), length, 'The symbol version');
      case IndexGroup.SymbolUpload:
        return whole(this.symbols.catalog().symbolUpload, length, 'The symbol upload');
      case IndexGroup.DataTypeUpload:
        return whole(this.symbols.catalog().dataTypeUpload, length, 'The data-type upload');
      case IndexGroup.SymbolUploadInfo2:
        return uploadInfo(encodeUploadInfo(this.symbols.catalog()), length, [24, 64]);
      case IndexGroup.SymbolUploadInfo:
        return uploadInfo(encodeUploadInfo(this.symbols.catalog()), length, [8]);
      case IndexGroup.DeviceData: {
        const out = Buffer.alloc(4);
        const { adsState, deviceState } = this.state();
        out.writeUInt16LE(adsState, 0);
        out.writeUInt16LE(deviceState, 2);
        return whole(out, length, 'The device state');
      }
      default:
        throw notServed(ig);
    }
  }

  write(ig: number, io: number, data: Buffer, ctx: RequestContext): void {
    if (this.#areas.serves(ig)) {
      this.#areas.write(ig, io, data);
      return;
    }
    switch (ig) {
      case IndexGroup.SymbolValueByHandle: {
        const target = this.#handle(io, ctx);
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
      case IndexGroup.SymbolReleaseHandle: {
        // The handle travels in the data (ads-client) or, with no data, in the index offset.
        const handle = data.length >= 4 ? data.readUInt32LE(0) : io;
        this.#table(handle, ctx).release(handle);
        return;
      }
      default:
        throw notServed(ig);
    }
  }

  readWrite(ig: number, io: number, readLength: number, data: Buffer, ctx: RequestContext): Buffer {
    if (this.#areas.serves(ig)) throw wrongService(ig);
    switch (ig) {
      case IndexGroup.SymbolHandleByName: {
        if (readLength < 4) {
          throw new AdsError(AdsErrorCode.InvalidSize, `A handle needs 4 bytes, buffer holds ${readLength}`);
        }
        const target = this.symbols.handleTarget(decodeName(data));
        const handle = this.handles.obtain(ctx.header.source).create(target);
        const info =
          target.kind === 'variable'
            ? encodeHandleInfo(handle, target.size, target.typeName)
            : encodeHandleInfo(
                handle,
                target.method.returnType?.size ?? 0,
                target.method.returnType?.name ?? '',
              );
        return fit(info, readLength, 4, 'A handle');
      }
      case IndexGroup.SymbolValueByName: {
        const r = this.symbols.resolve(decodeName(data));
        return this.#bytes(r.offset, Math.min(readLength, r.size));
      }
      case IndexGroup.SymbolInfoByNameEx:
        return whole(this.symbols.symbolInfo(decodeName(data)), readLength, 'The symbol entry');
      case IndexGroup.DataTypeInfoByNameEx:
        return whole(this.symbols.dataTypeInfo(decodeName(data)), readLength, 'The data-type entry');
      case IndexGroup.SymbolValueByHandle: {
        const target = this.#handle(io, ctx);
        if (target.kind !== 'method') throw wrongService(ig);
        return invokeRpc(this.plc, target, data, readLength);
      }
      case IndexGroup.SumRead:
        return this.#sum.read(io, data, ctx);
      case IndexGroup.SumWrite:
        return this.#sum.write(io, data, ctx);
      case IndexGroup.SumReadWrite:
        return this.#sum.readWrite(io, data, ctx);
      default:
        throw notServed(ig);
    }
  }

  #notificationTarget(request: Extract<AdsRequest, { command: 6 }>, ctx: RequestContext): NotificationTarget {
    const { indexGroup: ig, indexOffset: io, length } = request;
    if (this.#areas.serves(ig)) {
      if (this.#areas.isBitGroup(ig)) throw wrongService(ig);
      return { kind: 'memory', offset: this.#areas.range(ig, io, length), size: length };
    }
    switch (ig) {
      case IndexGroup.SymbolValueByHandle: {
        const target = this.#handle(io, ctx);
        if (target.kind !== 'variable') throw wrongService(ig);
        return { kind: 'memory', offset: target.offset, size: Math.min(length, target.size) };
      }
      case IndexGroup.SymbolVersion:
        return { kind: 'symbolVersion' };
      case IndexGroup.DeviceData:
        return { kind: 'state' };
      default:
        throw notServed(ig);
    }
  }

  #table(handle: number, ctx: RequestContext): HandleTable {
    const table = this.handles.find(ctx.header.source);
    if (!table) throw new AdsError(AdsErrorCode.SymbolNotFound, `Handle ${handle} is not valid`);
    return table;
  }

  #handle(handle: number, ctx: RequestContext): HandleTarget {
    return this.#table(handle, ctx).get(handle);
  }
}
