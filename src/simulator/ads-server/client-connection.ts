// One client TCP connection: framing, the AMS/TCP router commands (port connect and close), in-order
// processing of ADS requests, and the client's open files and notification frames (variable handles
// belong to the client's AMS address: see handle-registry.ts).

import type { Socket } from 'node:net';
import type { Dispatcher } from './dispatcher.ts';
import { FileHandleTable } from './file-service.ts';
import { AdsCommand, AmsTcpCommand, REQUEST_FLAGS } from '../../plc/ads/index.ts';
import {
  decodeAmsPacket,
  encodeAmsPacket,
  encodeAmsTcpFrame,
  FrameError,
  FrameSplitter,
  type AmsPacket,
} from './protocol/frame.ts';
import { parseNetId, type AmsAddress } from './protocol/net-id.ts';
import type { ClientSession } from './client-session.ts';

/** Requests a client may pipeline while an asynchronous (file) request is in progress. */
const MAX_QUEUED_REQUESTS = 10_000;
/**
 * Unsent response bytes above which no further request is answered (and the socket is not read) until
 * the client has taken them: a client that sends requests but never reads cannot grow our memory.
 */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

export interface ConnectionHost {
  dispatcher: Dispatcher;
  maxFrameBytes: number;
  maxFilesPerClient: number;
  /** Router mode: the NetId and a fresh ADS port for a client that asks for one. */
  assignAddress(remoteAddress: string | undefined): AmsAddress;
  serverNetId: string;
  onClose(connection: AdsConnection): void;
  onStalled(connection: AdsConnection): void;
}

export class AdsConnection implements ClientSession {
  readonly files: FileHandleTable;
  #closed = false;
  #busy = false;
  #waitingForDrain = false;
  #queue: AmsPacket[] = [];
  readonly #splitter: FrameSplitter;
  /** Set when the client registered a port through the router commands. */
  assigned: AmsAddress | undefined;
  /** Source address of the latest request (the client's own address when it has a fixed one). */
  source: AmsAddress | undefined;
  requests = 0;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    this.files = new FileHandleTable(host.maxFilesPerClient);
    this.#splitter = new FrameSplitter(host.maxFrameBytes);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  get closed(): boolean {
    return this.#closed;
  }

  get bufferedBytes(): number {
    return this.socket.writableLength;
  }

  get remote(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? 0}`;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.files.open.clear();
    this.files.finds.clear();
    this.socket.destroy();
    this.host.onClose(this);
  }

  sendNotification(source: AmsAddress, target: AmsAddress, payload: Buffer): void {
    this.#write(
      encodeAmsPacket({
        header: {
          target,
          source,
          commandId: AdsCommand.DeviceNotification,
          stateFlags: REQUEST_FLAGS,
          errorCode: 0,
          invokeId: 0,
        },
        data: payload,
      }),
    );
  }

  #write(frame: Buffer): void {
    if (!this.#closed) this.socket.write(frame);
  }

  #onData(chunk: Buffer): void {
    if (this.#closed) return;
    try {
      for (const frame of this.#splitter.push(chunk)) {
        switch (frame.command) {
          case AmsTcpCommand.AdsCommand:
            if (this.#queue.length >= MAX_QUEUED_REQUESTS) throw new FrameError('Too many requests waiting');
            this.#queue.push(decodeAmsPacket(frame.payload));
            break;
          case AmsTcpCommand.PortConnect:
            this.assigned = this.host.assignAddress(this.socket.remoteAddress);
            this.#write(this.#addressFrame(AmsTcpCommand.PortConnect, this.assigned));
            break;
          case AmsTcpCommand.PortClose:
            // A router answers a port close by closing the connection.
            this.socket.end();
            return;
          case AmsTcpCommand.GetLocalNetId:
            this.#write(encodeAmsTcpFrame(AmsTcpCommand.GetLocalNetId, parseNetId(this.host.serverNetId)));
            break;
          default:
            // Router notes and unknown router commands need no answer.
            break;
        }
      }
    } catch (err) {
      if (err instanceof FrameError) {
        this.close();
        return;
      }
      throw err;
    }
    this.#drain();
  }

  #waitForDrain(): void {
    this.#waitingForDrain = true;
    this.socket.pause();
    this.host.onStalled(this);
    this.socket.once('drain', () => {
      this.#waitingForDrain = false;
      if (this.#closed) return;
      this.socket.resume();
      this.#drain();
    });
  }

  #addressFrame(command: number, address: AmsAddress): Buffer {
    const payload = Buffer.alloc(8);
    parseNetId(address.netId).copy(payload, 0);
    payload.writeUInt16LE(address.port, 6);
    return encodeAmsTcpFrame(command, payload);
  }

  /** Requests are answered in arrival order; a file request (asynchronous) holds the ones behind it. */
  #drain(): void {
    while (!this.#busy && !this.#closed && !this.#waitingForDrain) {
      if (this.socket.writableLength > MAX_UNSENT_BYTES) {
        this.#waitForDrain();
        return;
      }
      const packet = this.#queue.shift();
      if (!packet) return;
      this.requests++;
      this.source = packet.header.source;
      const outcome = this.host.dispatcher.dispatch(packet, { session: this, header: packet.header });
      if (outcome instanceof Promise) {
        this.#busy = true;
        void outcome.then(
          (frame) => {
            this.#busy = false;
            this.#write(frame);
            this.#drain();
          },
          () => this.close(),
        );
        return;
      }
      if (outcome) this.#write(outcome);
    }
  }
}
