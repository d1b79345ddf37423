// The WebSockets hub transport: one WebSocket message per write (binary for the MessagePack protocol), the
// socket's send callback as backpressure, close code 1002 for a refused handshake.
import type { WebSocket } from 'ws';
import type { HubTransport, TransportListener } from './hub-transport.ts';
import type { Frame } from './wire-protocols.ts';

export class WebSocketTransport implements HubTransport {
  readonly name = 'WebSockets';
  readonly binary = true;
  readonly inherentKeepAlive = false;
  readonly #socket: WebSocket;

  constructor(socket: WebSocket) {
    this.#socket = socket;
  }

  attach(listener: TransportListener): void {
    this.#socket.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data)
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data);
      listener.message(bytes, isBinary);
    });
    this.#socket.on('close', () => listener.closed());
    this.#socket.on('error', () => listener.closed());
  }

  write(data: Frame, binary: boolean, written?: () => void): void {
    if (this.#socket.readyState !== 1) return;
    this.#socket.send(data, { binary }, written);
  }

  close(protocolError = false): void {
    this.#socket.close(protocolError ? 1002 : 1000);
  }
}
