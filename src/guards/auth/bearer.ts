// Finds the bearer token of a request: the Authorization header, or `access_token` on WebSocket routes only.
import { AppError } from '../../errors.ts';

export interface TokenCarrier {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly query: unknown;
}

const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token, or a 401 explaining why there is none (missing, malformed, or in a query string not allowed). */
export function extractBearerToken(request: TokenCarrier, allowQueryToken: boolean): string {
  const queryToken = queryParameter(request.query, 'access_token');
  if (queryToken !== undefined && !allowQueryToken) {
    throw new AppError(
      'UNAUTHORIZED',
      'The access_token query parameter is accepted only on WebSocket routes; send an Authorization: Bearer header.',
      { 'WWW-Authenticate': 'Bearer error="invalid_request"' },
    );
  }
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = bearerPattern.exec(header);
    if (!match?.[1]) {
      throw new AppError('UNAUTHORIZED', 'The Authorization header must be "Bearer <token>".', {
        'WWW-Authenticate': 'Bearer error="invalid_request"',
      });
    }
    return match[1];
  }
  if (typeof queryToken === 'string' && queryToken.length > 0) return queryToken;
  if (queryToken !== undefined) {
    throw new AppError('UNAUTHORIZED', 'Send exactly one non-empty access_token query parameter.', {
      'WWW-Authenticate': 'Bearer error="invalid_request"',
    });
  }
  throw new AppError('UNAUTHORIZED', undefined, { 'WWW-Authenticate': 'Bearer' });
}

function queryParameter(query: unknown, name: string): unknown {
  if (typeof query !== 'object' || query === null || !Object.hasOwn(query, name)) return undefined;
  return (query as Record<string, unknown>)[name];
}
