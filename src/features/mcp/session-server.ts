// One MCP server per session: the tools (listed and called through the runner), and the resources and prompt
// when their parts are given. The SDK's McpServer holds the protocol; the tool handlers are set on its
// underlying server so the tools keep their TypeBox schemas and their errors stay tool results.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../../http/openapi.ts';
import { callerOf } from './caller.ts';
import type { ToolRunner } from './tool-kit.ts';

const instructions =
  'plc-gateway gives read access to Beckhoff TwinCAT PLCs (and, with an operator token, writes). Start with ' +
  'list_plcs, then get_plc_status; browse_symbols and get_symbol_info find variables, read_variable(s) read ' +
  'them, watch_variables samples them over time. Every call applies the caller token’s policy and plc_access: ' +
  'a refused call answers isError with the gateway’s error code (FORBIDDEN, PLC_ACCESS_DENIED, ...).';

/** What a part of a session holds: whether it is in use without requests, and how to let go of it. */
export interface PartHandle {
  busy(): boolean;
  close(): void;
}

/** Adds what a session offers besides tools (resources, prompts); called before the server connects. */
export type SessionPart = (server: McpServer) => PartHandle;

export interface SessionServer {
  readonly server: McpServer;
  /** A part is in use (a resource subscription). */
  busy(): boolean;
  /** Ends the server and lets go of what its parts hold. */
  close(): Promise<void>;
}

export function createSessionServer(runner: ToolRunner, parts: readonly SessionPart[]): SessionServer {
  const mcp = new McpServer({ name: 'plc-gateway', version: packageVersion() }, { instructions });
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: runner.list() }));
  mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    runner.call(request.params.name, request.params.arguments, callerOf(extra)),
  );
  const handles = parts.map((part) => part(mcp));
  return {
    server: mcp,
    busy: () => handles.some((h) => h.busy()),
    close: async () => {
      for (const h of handles) h.close();
      await mcp.close();
    },
  };
}
