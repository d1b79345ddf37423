// What a hub session needs of the transport carrying it (WebSockets, Server-Sent Events, LongPolling): write a
// message with backpressure, hand over what the client sent, report that the client is gone, and close.
import type { Frame } from './wire-protocols.ts';

export type TransportName = 'WebSockets' | 'ServerSentEvents' | 'LongPolling';

export interface TransportListener {
  /** Bytes the client sent; `binary` as the transport saw it (undefined: the transport cannot tell). */
  message(data: Buffer, binary: boolean | undefined): void;
  /** The client is gone (socket closed, response closed, no poll within the disconnect timeout). */
  closed(): void;
}

export interface HubTransport {
  readonly name: TransportName;
  /** Whether the transport carries bytes (binary transfer format) as well as text. */
  readonly binary: boolean;
  /**
   * The transport itself tells whether the client is there (LongPolling: its polls), so neither side pings and
   * the client timeout does not apply: stock clients send no Ping over it.
   */
  readonly inherentKeepAlive: boolean;
  attach(listener: TransportListener): void;
  /** Writes one message; `written` runs once the transport can take the next (the session's backpressure). */
  write(data: Frame, binary: boolean, written?: () => void): void;
  /** Ends the transport after what was written; `protocolError` for a refused handshake. */
  close(protocolError?: boolean): void;
}
