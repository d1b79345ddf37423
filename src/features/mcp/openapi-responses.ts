// What /mcp answers, for the OpenAPI document only: the SDK transport writes its replies itself (JSON-RPC bodies,
// event streams), so these cannot be route response schemas, which would reshape what fastify sends.
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../http/envelope.ts';

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'A JSON-RPC 2.0 message (MCP)' },
);

const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: Type.Object({ code: Type.Integer(), message: Type.String() }),
    id: Type.Null(),
  },
  { description: 'A JSON-RPC error without a request id' },
);

const jsonRpcError = (description: string) => ({
  description,
  content: { 'application/json': { schema: JsonRpcError } },
});

export const mcpResponses = {
  200: {
    description:
      'POST: the JSON-RPC response(s), as JSON or as an event stream of messages; the answer to initialize ' +
      'carries the Mcp-Session-Id header to send from then on. GET: the session’s server-to-client event stream. ' +
      'DELETE: the session is ended.',
    content: {
      'application/json': { schema: JsonRpcMessage },
      'text/event-stream': { schema: Type.String() },
    },
  },
  202: { description: 'POST of notifications or responses only: accepted, no body' },
  400: {
    description:
      'JSON-RPC error: no Mcp-Session-Id header outside initialize, invalid JSON-RPC, unsupported protocol ' +
      'version; or the error envelope (VALIDATION_ERROR) for a body that is not JSON',
    content: { 'application/json': { schema: Type.Union([JsonRpcError, ErrorEnvelope]) } },
  },
  404: jsonRpcError('JSON-RPC error -32001: the session is unknown or expired; initialize a new one'),
  405: jsonRpcError('JSON-RPC error: method not allowed'),
  406: jsonRpcError('JSON-RPC error: the Accept header must list application/json and text/event-stream'),
  409: jsonRpcError('JSON-RPC error: the session already has its server stream (GET) open'),
  429: {
    ...ErrorEnvelope,
    description:
      'Error envelope; error.code: CONNECTION_LIMIT (Mcp.MaxSessionsPerUser or the total of sessions), RATE_LIMITED',
  },
};
