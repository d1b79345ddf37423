// The two hub protocols behind one shape: the JSON protocol (text, record-separated) and the MessagePack protocol
// (binary, each message an array prefixed with its varint length), as the SignalR hub protocol spec defines them.
// A connection picks one in its handshake; reading, the frames the server writes and how frames join differ.
import { decode, encode } from '@msgpack/msgpack';
import { RecordBuffer } from './record-buffer.ts';
import {
  closeFrame,
  completionFrame,
  invocationFrame,
  MessageType,
  parseMessage,
  pingFrame,
  type ClientMessage,
  type HubProtocolName,
  type ParseResult,
} from './protocol.ts';

/** One server-to-client message as written: text for the JSON protocol, bytes for MessagePack. */
export type Frame = string | Buffer;

/** What a connection read: its messages in order, or `overflow` (bytes that would be held) past the bound. */
export type ReadResult = { readonly messages: ParseResult[] } | { readonly overflow: number };

export interface MessageReader {
  push(data: Buffer): ReadResult;
}

export type Outcome = { result: unknown } | { error: string };

export interface WireProtocol {
  readonly name: HubProtocolName;
  /** Binary transfer format: needs a transport that carries bytes (WebSockets, LongPolling; not SSE). */
  readonly binary: boolean;
  /** A reader holding at most `maxUnparsed` bytes of an unfinished message (Hubs:MaxUnparsedBytes). */
  reader(maxUnparsed: number): MessageReader;
  /**
   * A server-to-client invocation whose single argument is JSON text (the payload every stream carries), or whose
   * arguments are, one JSON text each.
   */
  invocation(target: string, argumentJson: string | readonly string[]): Frame;
  completion(invocationId: string, outcome: Outcome): Frame;
  close(error: string | undefined, allowReconnect: boolean): Frame;
  readonly ping: Frame;
  /** Frames written together as one transport message. */
  join(frames: readonly Frame[]): Frame;
}

export const jsonProtocol: WireProtocol = {
  name: 'json',
  binary: false,
  reader(maxUnparsed) {
    const buffer = new RecordBuffer(maxUnparsed);
    return {
      push(data) {
        const received = buffer.push(data);
        if ('overflow' in received) return received;
        return { messages: received.records.map(parseMessage) };
      },
    };
  },
  invocation: invocationFrame,
  completion: completionFrame,
  close: closeFrame,
  ping: pingFrame,
  join: (frames) => frames.join(''),
};

// The varint length prefix: 7 bits a byte, least significant first, at most 5 bytes (the spec's 2 GB bound).
const maxPrefixBytes = 5;

function prefixed(body: Uint8Array): Buffer {
  const prefix: number[] = [];
  let n = body.length;
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n > 0) byte |= 0x80;
    prefix.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from(prefix), body]);
}

type Prefix = { readonly length: number; readonly size: number } | 'incomplete' | 'invalid';

function readPrefix(data: Buffer, at: number): Prefix {
  let length = 0;
  for (let i = 0; i < maxPrefixBytes; i++) {
    const byte = data[at + i];
    if (byte === undefined) return 'incomplete';
    length += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { length, size: i + 1 };
  }
  return 'invalid';
}

/** Length-prefixed messages out of a byte stream, holding at most `maxUnparsed` bytes of an unfinished one. */
export class LengthPrefixedReader implements MessageReader {
  readonly #maxUnparsed: number;
  #held: Buffer = Buffer.alloc(0);

  constructor(maxUnparsed: number) {
    this.#maxUnparsed = maxUnparsed;
  }

  push(data: Buffer): ReadResult {
    const bytes = this.#held.length === 0 ? data : Buffer.concat([this.#held, data]);
    const messages: ParseResult[] = [];
    let at = 0;
    for (;;) {
      const prefix = readPrefix(bytes, at);
      if (prefix === 'incomplete') break;
      if (prefix === 'invalid') {
        messages.push({ ok: false, error: 'A message length prefix is longer than 5 bytes.' });
        return { messages };
      }
      // A message announced larger than the bound is refused before its bytes arrive.
      if (prefix.length > this.#maxUnparsed) return { overflow: prefix.length };
      if (bytes.length - at - prefix.size < prefix.length) break;
      const start = at + prefix.size;
      messages.push(parseMessagePack(bytes.subarray(start, start + prefix.length)));
      at = start + prefix.length;
    }
    const rest = bytes.length - at;
    if (rest > this.#maxUnparsed) return { overflow: rest };
    // A copy: the rest must not keep the whole received message alive.
    this.#held = rest === 0 ? Buffer.alloc(0) : Buffer.from(bytes.subarray(at));
    return { messages };
  }
}

/** One MessagePack message body: `[type, headers, invocationId, target, arguments, streamIds?]` and the like. */
export function parseMessagePack(body: Uint8Array): ParseResult {
  let m: unknown;
  try {
    m = decode(body);
  } catch {
    return { ok: false, error: 'A message is not valid MessagePack.' };
  }
  if (!Array.isArray(m) || m.length === 0)
    return { ok: false, error: 'A message must be a MessagePack array.' };
  const type: unknown = m[0];
  switch (type) {
    case MessageType.Invocation: {
      const [, , invocationId, target, args] = m as unknown[];
      if (typeof target !== 'string' || target.length === 0) {
        return { ok: false, error: 'An invocation needs a target.' };
      }
      if (!Array.isArray(args)) return { ok: false, error: 'An invocation needs an arguments array.' };
      if (invocationId !== null && invocationId !== undefined && typeof invocationId !== 'string') {
        return { ok: false, error: 'An invocationId must be a string or nil.' };
      }
      const message: ClientMessage = {
        type: 1,
        target,
        arguments: args as unknown[],
        ...(typeof invocationId === 'string' ? { invocationId } : {}),
      };
      return { ok: true, message };
    }
    case MessageType.Ping:
      return { ok: true, message: { type: 6 } };
    case MessageType.Close: {
      const error: unknown = m[1];
      return { ok: true, message: { type: 7, ...(typeof error === 'string' ? { error } : {}) } };
    }
    case MessageType.StreamItem:
    case MessageType.Completion:
    case MessageType.StreamInvocation:
    case MessageType.CancelInvocation:
      return { ok: true, message: { type } };
    default:
      return { ok: false, error: `Unknown message type ${JSON.stringify(type)}.` };
  }
}

// Completion result kinds of the MessagePack protocol.
const errorResult = 1;
const nonVoidResult = 3;

export const messagePackProtocol: WireProtocol = {
  name: 'messagepack',
  binary: true,
  reader: (maxUnparsed) => new LengthPrefixedReader(maxUnparsed),
  // The argument is the JSON payload the JSON protocol carries, as MessagePack values: 64-bit integers and
  // dates are strings there and stay the same strings here.
  invocation: (target, argumentJson) =>
    prefixed(
      encode([
        MessageType.Invocation,
        {},
        null,
        target,
        (typeof argumentJson === 'string' ? [argumentJson] : argumentJson).map(
          (a) => JSON.parse(a) as unknown,
        ),
      ]),
    ),
  completion: (invocationId, outcome) =>
    prefixed(
      encode(
        'error' in outcome
          ? [MessageType.Completion, {}, invocationId, errorResult, outcome.error]
          : [MessageType.Completion, {}, invocationId, nonVoidResult, outcome.result],
      ),
    ),
  close: (error, allowReconnect) => prefixed(encode([MessageType.Close, error ?? null, allowReconnect])),
  ping: prefixed(encode([MessageType.Ping])),
  join: (frames) => Buffer.concat(frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f))),
};

export function wireProtocol(name: HubProtocolName): WireProtocol {
  return name === 'json' ? jsonProtocol : messagePackProtocol;
}
