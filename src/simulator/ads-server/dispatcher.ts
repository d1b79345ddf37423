// Routes one ADS request to the port it targets and turns the outcome into a response frame:
// AMS-level errors (unknown port or machine) in the header, service errors in the ADS payload.

import { adsCodeOf, isExpectedFailure } from './error-map.ts';
import {
  decodeRequest,
  encodeErrorResponse,
  encodeResponse,
  type AdsRequest,
  type AdsResponse,
} from './protocol/commands.ts';
import { AdsCommand, RESPONSE_FLAGS, StateFlags, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { encodeAmsPacket, type AmsPacket } from './protocol/frame.ts';
import type { RequestContext } from './client-session.ts';

export interface PortService {
  handle(request: AdsRequest, ctx: RequestContext): AdsResponse | Promise<AdsResponse>;
}

export interface DispatcherOptions {
  /** NetIds this server answers for (its own and the loopback id). */
  isOwnNetId(netId: string): boolean;
  /** The service behind an ADS port of a NetId, or undefined when no such port is open right now. */
  service(port: number, netId: string): PortService | undefined;
  onUnexpectedError(err: unknown): void;
}

function responseFrame(packet: AmsPacket, errorCode: number, data: Buffer): Buffer {
  const h = packet.header;
  return encodeAmsPacket({
    header: {
      target: h.source,
      source: h.target,
      commandId: h.commandId,
      stateFlags: RESPONSE_FLAGS,
      errorCode,
      invokeId: h.invokeId,
    },
    data,
  });
}

export class Dispatcher {
  constructor(private readonly options: DispatcherOptions) {}

  /** The response frame, a promise of it (file services), or undefined when nothing is to be answered. */
  dispatch(packet: AmsPacket, ctx: RequestContext): Buffer | Promise<Buffer> | undefined {
    const h = packet.header;
    if ((h.stateFlags & StateFlags.Response) !== 0) return undefined;
    if (!this.options.isOwnNetId(h.target.netId)) {
      return responseFrame(packet, AdsErrorCode.TargetMachineNotFound, Buffer.alloc(0));
    }
    const service = this.options.service(h.target.port, h.target.netId);
    if (!service) return responseFrame(packet, AdsErrorCode.TargetPortNotFound, Buffer.alloc(0));
    let request: AdsRequest;
    try {
      if (h.commandId === AdsCommand.DeviceNotification) {
        throw new AdsError(AdsErrorCode.ServiceNotSupported, 'Servers do not accept device notifications');
      }
      request = decodeRequest(h.commandId, packet.data);
    } catch (err) {
      const code = adsCodeOf(err);
      // A command without a known response shape can only carry its error in the AMS header.
      const known = h.commandId >= AdsCommand.ReadDeviceInfo && h.commandId <= AdsCommand.ReadWrite;
      return known && h.commandId !== AdsCommand.DeviceNotification
        ? responseFrame(packet, 0, encodeErrorResponse(h.commandId, code))
        : responseFrame(packet, code, Buffer.alloc(0));
    }
    try {
      const outcome = service.handle(request, ctx);
      if (outcome instanceof Promise) {
        return outcome.then(
          (response) => responseFrame(packet, 0, encodeResponse(response)),
          (err: unknown) => this.#failure(packet, err),
        );
      }
      return responseFrame(packet, 0, encodeResponse(outcome));
    } catch (err) {
      return this.#failure(packet, err);
    }
  }

  #failure(packet: AmsPacket, err: unknown): Buffer {
    if (!isExpectedFailure(err)) this.options.onUnexpectedError(err);
    return responseFrame(packet, 0, encodeErrorResponse(packet.header.commandId, adsCodeOf(err)));
  }
}
