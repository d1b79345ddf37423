// Finds the bearer token of a request: the Authorization header, or `access_token` on WebSocket and event-stream
// routes only (browsers cannot set headers there).
// Exactly one credential per request: a proxy and the gateway must never disagree about who is calling.
import { AppError } from '../../errors.ts';
import { countHeader } from '../raw-headers.ts';

export interface TokenCarrier {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly query: unknown;
  /** Node's header list as received, repeats included (`headers` keeps only the first Authorization). */
  readonly raw: { readonly rawHeaders: readonly string[] };
}

const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

function invalidRequest(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { 'WWW-Authenticate': 'Bearer error="invalid_request"' });
}

/** The token, or a 401 explaining why there is none (missing, malformed, repeated, or in a query not allowed). */
export function extractBearerToken(request: TokenCarrier, allowQueryToken: boolean): string {
  const queryToken = queryParameter(request.query, 'access_token');
  if (queryToken !== undefined && !allowQueryToken) {
    throw invalidRequest(
      'The access_token query parameter is accepted only on WebSocket and event-stream routes; send an Authorization: Bearer header.',
    );
  }
  if (countHeader(request.raw.rawHeaders, 'authorization') > 1) {
    throw invalidRequest('Send exactly one Authorization header.');
  }
  const header = request.headers.authorization;
  if (header !== undefined && queryToken !== undefined) {
    throw invalidRequest('Send the token either in the Authorization header or in access_token, not both.');
  }
  if (typeof header === 'string' && header.length > 0) {
    const match = bearerPattern.exec(header);
    if (!match?.[1]) throw invalidRequest('The Authorization header must be "Bearer <token>".');
    return match[1];
  }
  if (typeof queryToken === 'string' && queryToken.length > 0) return queryToken;
  if (queryToken !== undefined)
    throw invalidRequest('Send exactly one non-empty access_token query parameter.');
  throw new AppError('UNAUTHORIZED', undefined, { 'WWW-Authenticate': 'Bearer' });
}

function queryParameter(query: unknown, name: string): unknown {
  if (typeof query !== 'object' || query === null || !Object.hasOwn(query, name)) return undefined;
  return (query as Record<string, unknown>)[name];
}
