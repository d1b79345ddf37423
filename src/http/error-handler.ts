// Renders every failure as the envelope: AppError as cataloged, fastify's own errors mapped to catalog codes,
// anything else as 500 INTERNAL_ERROR with the details only in the log. Also the 404/405 handler and the
// answer to requests Node cannot parse.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorCatalog, isAppError, type ErrorCode } from '../errors.ts';
import { failure } from './envelope.ts';
import type { RouteIndex } from './route-index.ts';

interface Rendered {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

// Framework errors whose message is written for the caller; every other one gets the catalog message.
const fastifyMessages: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but the content type is application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is larger than the limit.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The content type is not supported; send application/json.',
  FST_ERR_BAD_URL: 'The URL is not valid.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path segment is too long.',
};

const codeByStatus: Readonly<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'VALIDATION_ERROR',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** Maps any thrown value to what the caller sees; pure so it can be tested without a server. */
export function renderError(err: unknown): Rendered {
  if (isAppError(err)) {
    return { status: err.status, code: err.code, message: err.message, headers: err.headers };
  }
  const fe = err as Partial<FastifyError> | null;
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (fe?.validation !== undefined && status === 400) {
    return { status: 400, code: 'VALIDATION_ERROR', message: fe.message ?? '', headers: {} };
  }
  if (status >= 400 && status < 500) {
    const code = codeByStatus[status] ?? 'VALIDATION_ERROR';
    const message =
      (fe?.code !== undefined ? fastifyMessages[fe.code] : undefined) ?? errorCatalog[code].message;
    return { status: errorCatalog[code].status, code, message, headers: {} };
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: errorCatalog.INTERNAL_ERROR.message, headers: {} };
}

function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const rendered = renderError(err);
  if (rendered.status >= 500 && !isAppError(err)) request.log.error({ err }, 'request failed');
  else if (rendered.status >= 500)
    request.log.warn({ code: rendered.code, error: rendered.message }, 'request failed');
  else request.log.debug({ code: rendered.code }, 'request refused');
  return reply
    .status(rendered.status)
    .headers(rendered.headers)
    .type('application/json; charset=utf-8')
    .send(failure(rendered.code, rendered.message));
}

// HTTP-level failures Node reports before a request exists; the status stays the protocol's own.
const clientErrors: Readonly<Record<string, { status: number; message: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request line or headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
};

/**
 * For fastify's `clientErrorHandler` option: a request Node could not parse (headers too large, malformed
 * HTTP, timeout) still gets the envelope, written to the socket before it is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = err.code === undefined ? undefined : clientErrors[err.code];
  const { status, message } = known ?? { status: 400, message: 'The request is not valid HTTP.' };
  const body = JSON.stringify(failure('VALIDATION_ERROR', message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** For fastify's `frameworkErrors` option: errors raised before routing (bad URL encoding, overlong parameter). */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendError(err, request, reply);
}

export function installErrorHandlers(app: FastifyInstance, routes: RouteIndex): void {
  app.addHook('onRoute', (route) => routes.add(route.method, route.url));
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const allowed = routes.allowedMethods(path);
    // A route that exists for this method but found nothing (a static file that is not there) is a 404.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      void reply.header('Allow', allowed.join(', '));
      return sendError(
        new AppError(
          'METHOD_NOT_ALLOWED',
          `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
        ),
        request,
        reply,
      );
    }
    return sendError(new AppError('NOT_FOUND'), request, reply);
  });
}
