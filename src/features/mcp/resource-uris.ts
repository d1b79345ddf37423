// Reading a resource URI a client sent: not a URI, or a %-escape that does not decode, is invalid params naming
// the URI (the client's mistake), never an internal error.
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/** The URI parsed; invalid params when it is not one. */
export function parseResourceUri(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `'${raw}' is not a resource URI.`, { uri: raw });
  }
}

/** One %-encoded part of a resource URI, decoded; invalid params naming the URI when an escape is malformed. */
export function decodeUriPart(uri: string, part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new McpError(
      ErrorCode.InvalidParams,
      `The resource URI '${uri}' has a malformed %-escape in '${part}'.`,
      { uri },
    );
  }
}

/** A template's matched variables, each decoded (the SDK hands them over still encoded). */
export function decodeVariables(
  uri: string,
  variables: Record<string, string | string[]>,
): Record<string, string | string[]> {
  const decoded: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(variables)) {
    decoded[name] =
      typeof value === 'string' ? decodeUriPart(uri, value) : value.map((v) => decodeUriPart(uri, v));
  }
  return decoded;
}
