// The SignalR JSON hub protocol (versions 0 and 1, the same on the wire): record-separated JSON messages, the
// handshake (which also picks the MessagePack protocol), and the message shapes a stock @microsoft/signalr client
// sends and expects. Pure: parsing and formatting only.

/** Every message ends with the ASCII record separator. */
export const recordSeparator = '\u001e';

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
} as const;

export interface InvocationMessage {
  readonly type: 1;
  readonly invocationId?: string;
  readonly target: string;
  readonly arguments: readonly unknown[];
}

/** What the server accepts from a client after the handshake. */
export type ClientMessage =
  | InvocationMessage
  | { readonly type: 6 }
  | { readonly type: 7; readonly error?: string }
  | { readonly type: 2 | 3 | 4 | 5 };

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; error: string };

/** The hub protocols a client may pick in its handshake. */
export type HubProtocolName = 'json' | 'messagepack';

// Versions 0 and 1 of either protocol are the same on the wire (ASP.NET Core accepts every version up to its own).
const supportedVersions: readonly unknown[] = [0, 1];

/** The handshake request `{ protocol, version }`: the protocol picked, or the error text to send back. */
export function checkHandshake(record: string): { protocol: HubProtocolName } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(record);
  } catch {
    return { error: 'The handshake request is not valid JSON.' };
  }
  if (typeof parsed !== 'object' || parsed === null)
    return { error: 'The handshake request must be a JSON object.' };
  const { protocol, version } = parsed as { protocol?: unknown; version?: unknown };
  if (typeof protocol !== 'string') return { error: 'The handshake request has no protocol.' };
  if (protocol !== 'json' && protocol !== 'messagepack') {
    return { error: `The protocol '${protocol}' is not supported; use 'json' or 'messagepack'.` };
  }
  if (!supportedVersions.includes(version)) {
    return {
      error: `The protocol '${protocol}' version ${JSON.stringify(version)} is not supported; use 0 or 1.`,
    };
  }
  return { protocol };
}

export function parseMessage(record: string): ParseResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(record);
  } catch {
    return { ok: false, error: 'A message is not valid JSON.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: 'A message must be a JSON object.' };
  }
  const m = parsed as Record<string, unknown>;
  switch (m.type) {
    case MessageType.Invocation: {
      if (typeof m.target !== 'string' || m.target.length === 0) {
        return { ok: false, error: 'An invocation needs a target.' };
      }
      if (!Array.isArray(m.arguments)) return { ok: false, error: 'An invocation needs an arguments array.' };
      if (m.invocationId !== undefined && typeof m.invocationId !== 'string') {
        return { ok: false, error: 'An invocationId must be a string.' };
      }
      const message: InvocationMessage = {
        type: 1,
        target: m.target,
        arguments: m.arguments as unknown[],
        ...(typeof m.invocationId === 'string' ? { invocationId: m.invocationId } : {}),
      };
      return { ok: true, message };
    }
    case MessageType.Ping:
      return { ok: true, message: { type: 6 } };
    case MessageType.Close:
      return { ok: true, message: { type: 7, ...(typeof m.error === 'string' ? { error: m.error } : {}) } };
    case MessageType.StreamItem:
    case MessageType.Completion:
    case MessageType.StreamInvocation:
    case MessageType.CancelInvocation:
      return { ok: true, message: { type: m.type } };
    default:
      return { ok: false, error: `Unknown message type ${JSON.stringify(m.type)}.` };
  }
}

export const handshakeOk = `{}${recordSeparator}`;
export const pingFrame = `{"type":6}${recordSeparator}`;

export function handshakeError(error: string): string {
  return JSON.stringify({ error }) + recordSeparator;
}

/** A server-to-client invocation whose argument(s) are already JSON text (serialised once, shared). */
export function invocationFrame(target: string, argumentJson: string | readonly string[]): string {
  const args = typeof argumentJson === 'string' ? argumentJson : argumentJson.join(',');
  return `{"type":1,"target":${JSON.stringify(target)},"arguments":[${args}]}${recordSeparator}`;
}

export function completionFrame(
  invocationId: string,
  outcome: { result: unknown } | { error: string },
): string {
  return JSON.stringify({ type: MessageType.Completion, invocationId, ...outcome }) + recordSeparator;
}

export function closeFrame(error: string | undefined, allowReconnect: boolean): string {
  return (
    JSON.stringify({
      type: MessageType.Close,
      ...(error === undefined ? {} : { error }),
      ...(allowReconnect ? { allowReconnect } : {}),
    }) + recordSeparator
  );
}
