// A bare ws client speaking the SignalR JSON hub protocol by hand: sees every record, the Close message and the
// WebSocket close code (or the HTTP status of a refused upgrade).
import { WebSocket } from 'ws';
import { Signal } from './signal.ts';

export const RS = '\u001e';
const waitLimitMs = 10_000;

export class RawHub {
  readonly messages: Array<Record<string, unknown>> = [];
  closed: { code: number } | undefined;
  readonly socket: WebSocket;
  readonly #signal = new Signal();

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(url, { headers });
    this.socket.on('message', (data: Buffer) => {
      for (const record of data.toString().split(RS))
        if (record !== '') this.messages.push(JSON.parse(record) as Record<string, unknown>);
      this.#signal.notify();
    });
    this.socket.on('close', (code: number) => {
      this.closed = { code };
      this.#signal.notify();
    });
    this.socket.on('unexpected-response', (_req, res) => {
      this.closed = { code: res.statusCode ?? 0 };
      this.#signal.notify();
    });
    this.socket.on('open', () => this.#signal.notify());
    this.socket.on('error', () => undefined);
  }

  async open(): Promise<this> {
    await this.#signal.until(
      () => this.socket.readyState === WebSocket.OPEN || this.closed !== undefined,
      waitLimitMs,
      () => 'open',
    );
    return this;
  }

  /** Opens and completes the handshake. */
  async handshake(): Promise<this> {
    await this.open();
    this.send({ protocol: 'json', version: 1 });
    await this.next(() => true);
    return this;
  }

  /** Each record with its separator, all in one WebSocket message. */
  send(...records: unknown[]): void {
    this.socket.send(records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)) + RS).join(''));
  }

  /** Exactly these bytes as one text message. */
  sendRaw(text: string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.send(text, (err) => (err ? reject(err) : resolve())));
  }

  /** Invokes a hub method and waits for its Completion. */
  async invoke(id: string, target: string, ...args: unknown[]): Promise<Record<string, unknown>> {
    this.send({ type: 1, invocationId: id, target, arguments: args });
    return this.next((m) => m.type === 3 && m.invocationId === id);
  }

  next(match: (m: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    return this.#signal.until(
      () => this.messages.slice(from).find(match),
      waitLimitMs,
      () => `message after ${JSON.stringify(this.messages.slice(-5))}`,
    );
  }

  async closedWith(): Promise<{ code: number }> {
    return this.#signal.until(
      () => this.closed,
      waitLimitMs,
      () => 'close',
    );
  }

  close(): void {
    this.socket.close();
  }
}
