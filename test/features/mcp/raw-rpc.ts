// Plain JSON-RPC over POST /mcp, for what the SDK client never sends (batches, malformed bodies): a session opened
// by hand, requests posted as one message or a batch, answers read from the event stream or JSON body.
import { bearer, mintToken } from '../../helpers/tokens.ts';

export interface RpcAnswer {
  id?: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface Posted {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON-RPC answers (from the event stream or the JSON body); for a non-RPC body, the parsed JSON in [0]. */
  readonly messages: RpcAnswer[];
  /** The gateway's envelope, when the answer is one. */
  readonly envelope?: { data: null; error: { code: string; message: string } };
}

// The last version that allows batches: a client that negotiated it may send them.
export const batchingVersion = '2025-03-26';

export async function postRpc(
  url: URL,
  token: string,
  body: unknown,
  session?: string,
  extra: Record<string, string> = {},
): Promise<Posted> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...bearer(token),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': batchingVersion,
      ...(session ? { 'mcp-session-id': session } : {}),
      ...extra,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)) as RpcAnswer);
    return { status: res.status, headers: res.headers, messages };
  }
  if (text === '') return { status: res.status, headers: res.headers, messages: [] };
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed === 'object' && parsed !== null && 'data' in parsed && 'error' in parsed)
    return { status: res.status, headers: res.headers, messages: [], envelope: parsed as Posted['envelope'] };
  return {
    status: res.status,
    headers: res.headers,
    messages: (Array.isArray(parsed) ? parsed : [parsed]) as RpcAnswer[],
  };
}

export const initialize = (id: number | string = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: batchingVersion,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1.0.0' },
  },
});

/** An initialized session of these claims, opened by hand: its token and id. */
export async function openSession(
  url: URL,
  claims: Record<string, unknown>,
): Promise<{ token: string; session: string }> {
  const token = await mintToken(claims);
  const opened = await postRpc(url, token, initialize());
  const session = opened.headers.get('mcp-session-id');
  if (opened.status !== 200 || session === null) throw new Error(`initialize answered ${opened.status}`);
  const ready = await postRpc(url, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  if (ready.status !== 202) throw new Error(`notifications/initialized answered ${ready.status}`);
  return { token, session };
}

export const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

export const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
