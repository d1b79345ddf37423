// A Server-Sent Events reader over fetch: EventSource cannot send the Authorization header, so the console
// reads the stream itself and resumes with Last-Event-ID as EventSource would.
import { ApiError } from '../api/http.ts';
import { session } from '../auth/session.ts';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** Reads `response`'s event stream, calling `onEvent` for each event, until it ends or `signal` aborts. */
export async function readEvents(
  response: Response,
  onEvent: (e: SseEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const body = response.body;
  if (body === null) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const abort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', abort, { once: true });
  let buffer = '';
  let event: { id?: string; event?: string; data: string[] } = { data: [] };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (event.data.length > 0 || event.event !== undefined) {
            onEvent({ id: event.id, event: event.event ?? 'message', data: event.data.join('\n') });
          }
          event = { data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data.push(text);
        else if (field === 'event') event.event = text;
        else if (field === 'id') event.id = text;
      }
    }
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/**
 * Opens the event stream at `path` with the signed-in user's token. A refusal comes as JSON before the stream
 * opens: it throws ApiError with the gateway's code, as an API call would.
 */
export async function openEventStream(
  path: string,
  signal: AbortSignal,
  lastEventId?: string,
): Promise<Response> {
  const token = session.value?.token;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(path, { headers, cache: 'no-store', signal });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as
      { error?: { code: string; message: string } } | undefined;
    throw new ApiError(
      response.status,
      body?.error?.code ?? 'HTTP_ERROR',
      body?.error?.message ?? response.statusText,
    );
  }
  return response;
}
