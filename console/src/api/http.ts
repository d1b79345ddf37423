// Calls to the gateway's public API with the signed-in user's token, unwrapping the { data, error } envelope.
// A 401 signs the user out: the token is no longer good, and a page that kept it would fail every call.
import { session, signOut } from '../auth/session.ts';
import type { HealthReport } from './types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  data: T | null;
  error: { code: string; message: string } | null;
}

export type Body = { json: unknown } | { bytes: Blob } | undefined;

async function request<T>(method: string, path: string, body?: Body, accept?: string): Promise<T> {
  const token = session.value?.token;
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (accept !== undefined) headers.accept = accept;
  let payload: BodyInit | undefined;
  if (body !== undefined && 'json' in body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body !== undefined) {
    headers['content-type'] = 'application/octet-stream';
    payload = body.bytes;
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload ?? null, cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The gateway cannot be reached.');
  }
  // A byte answer (a file download) is the bytes themselves; failures still come in the envelope.
  if (response.ok && response.headers.get('content-type')?.startsWith('application/octet-stream')) {
    return (await response.blob()) as T;
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.status === 401 && token !== undefined) signOut('Your session has expired or was refused.');
  const envelope = parsed as Envelope<T> | undefined;
  if (!response.ok || envelope?.error) {
    const error = envelope?.error;
    throw new ApiError(response.status, error?.code ?? 'HTTP_ERROR', error?.message ?? response.statusText);
  }
  // /health answers its own format, without the envelope.
  return (envelope && 'data' in envelope ? envelope.data : parsed) as T;
}

export const api = {
  get: <T>(path: string): Promise<T> => request<T>('GET', path),
  post: <T>(path: string, body?: Body): Promise<T> => request<T>('POST', path, body),
  put: <T>(path: string, body: Body): Promise<T> => request<T>('PUT', path, body),
  delete: <T>(path: string): Promise<T> => request<T>('DELETE', path),
  /** The raw bytes of a file download (Accept: application/octet-stream, streamed by the gateway). */
  bytes: (path: string): Promise<Blob> => request<Blob>('GET', path, undefined, 'application/octet-stream'),
};

/** /api/plcs/{plcId}/... with each segment encoded. */
export function plcPath(plcId: string, ...rest: string[]): string {
  return ['/api/plcs', encodeURIComponent(plcId), ...rest.map((part) => encodeURIComponent(part))].join('/');
}

/** The message to show for a failed call: the code when the gateway sent one. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.code === 'HTTP_ERROR' ? err.message : `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * GET /health/ready (no envelope); a 503 (Unhealthy) still carries the report. Sent with the token: anonymous
 * callers get no per-PLC data, a signed-in user that of its own PLCs (an admin for every PLC: all of it).
 */
export async function loadReadiness(): Promise<HealthReport> {
  const token = session.value?.token;
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch('/health/ready', { cache: 'no-store', headers });
  return (await response.json()) as HealthReport;
}
