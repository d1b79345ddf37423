// The one JSON envelope `{ data, error }`: schema builders for routes and the value builders handlers return.
import { Type, type TNull, type TObject, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.ts';

export const ErrorBody = Type.Object(
  { code: Type.String({ description: 'Stable error code, e.g. PLC_NOT_FOUND' }), message: Type.String() },
  { additionalProperties: false },
);

/** The body of every failed response. */
export const ErrorEnvelope = Type.Object(
  { data: Type.Null(), error: ErrorBody },
  { additionalProperties: false, description: 'Failure: data is null' },
);

/** Response schema of a successful envelope carrying `data`. */
function envelope<T extends TSchema>(data: T): TObject<{ data: T; error: TNull }> {
  return Type.Object({ data, error: Type.Null() }, { additionalProperties: false });
}

/**
 * Route `response` schemas: the success envelope under 200 and the error envelope for 4xx/5xx, so the OpenAPI
 * document shows both and fastify serializes both.
 */
export function envelopeResponses<T extends TSchema>(data: T) {
  return { 200: envelope(data), '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
}

export interface Envelope<T> {
  data: T;
  error: null;
}

export interface ErrorResponse {
  data: null;
  error: { code: ErrorCode; message: string };
}

/** The success envelope a handler returns. */
export function ok<T>(data: T): Envelope<T> {
  return { data, error: null };
}

/** The success envelope's text around data serialized ahead of the request (`before` + JSON + `after`). */
export const okFrame = { before: '{"data":', after: ',"error":null}' } as const;

export function failure(code: ErrorCode, message: string): ErrorResponse {
  return { data: null, error: { code, message } };
}
