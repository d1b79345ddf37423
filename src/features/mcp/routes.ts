// /mcp (flag Mcp): the Model Context Protocol over Streamable HTTP (POST requests, GET server stream, DELETE to
// end a session). The guards verify the bearer token first, so a bad token is a 401 before any MCP message;
// each session belongs to its user and is served by its own SDK transport and server.
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply } from 'fastify';
import { createAdmission } from '../../guards/admission.ts';
import { principalOf } from '../../guards/install-guards.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { attachPrincipal } from './caller.ts';
import { createGuarded } from './guarded.ts';
import { promptsPart } from './prompts.ts';
import { resourcesPart } from './resources.ts';
import { createSessionServer, type SessionPart } from './session-server.ts';
import { SessionTable, type SessionHandle } from './sessions.ts';
import { ToolRunner } from './tool-kit.ts';
import { allTools } from './tools/all-tools.ts';

interface Session extends SessionHandle {
  readonly transport: StreamableHTTPServerTransport;
  /** Server streams (GET) open now: a subscription only keeps a session alive while someone listens. */
  openStreams: number;
}

// Sessions are swept at every /mcp request; this also frees idle ones when no request comes at all.
const sweepEveryMs = 60_000;

export const mcpRoutes: FeaturePlugin = (app, context) => {
  const { config } = context;
  const settings = config.settings.Mcp;
  const log = app.log;
  const admit = createAdmission(context);
  const runner = new ToolRunner(allTools({ context, log }), {
    config,
    admit,
    routes: context.routes,
    audit: context.audit,
    log,
  });
  const guarded = createGuarded(admit, context.routes);
  const parts: SessionPart[] = [resourcesPart(context, guarded, log), promptsPart(context, guarded)];
  const sessions = new SessionTable<Session>(
    {
      idleMs: settings.SessionIdleMinutes * 60_000,
      maxPerUser: settings.MaxSessionsPerUser,
      maxTotal: settings.MaxSessions,
    },
    context.now,
  );
  if (config.features.Mcp) {
    const sweeper = setInterval(() => void sessions.sweep(), sweepEveryMs);
    sweeper.unref();
    app.addHook('onClose', async () => {
      clearInterval(sweeper);
      await sessions.closeAll();
    });
  }

  const open = async (sub: string): Promise<Session> => {
    const server = createSessionServer(runner, parts);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, sub, session),
      onsessionclosed: (id) => sessions.remove(id),
    });
    const session: Session = {
      transport,
      openStreams: 0,
      close: () => server.close(),
      busy: () => session.openStreams > 0 && server.busy(),
    };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    };
    await server.server.connect(transport);
    return session;
  };

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    schema: {
      tags: ['MCP'],
      summary: 'Model Context Protocol (Streamable HTTP) for AI agents; see the README for the tools',
      hide: !config.features.Mcp,
    },
    config: { feature: 'Mcp', authenticate: true },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      await sessions.sweep();
      const header = request.headers['mcp-session-id'];
      let session: Session | undefined;
      if (typeof header === 'string') {
        session = sessions.use(header, principal.sub);
        // The MCP rule for an unknown or expired session: 404, and the client starts a new one.
        if (session === undefined)
          return rpcError(reply, 404, -32001, 'Session not found; initialize a new one.');
      } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
        sessions.checkRoom(principal.sub);
        session = await open(principal.sub);
      } else {
        return rpcError(reply, 400, -32000, 'Send the Mcp-Session-Id header, or initialize a session first.');
      }
      attachPrincipal(request.raw, principal);
      if (request.method === 'GET') {
        const listening = session;
        listening.openStreams++;
        request.raw.once('close', () => void listening.openStreams--);
      }
      reply.hijack();
      try {
        await session.transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        log.error({ err }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'Content-Type': 'application/json' });
          reply.raw.end(JSON.stringify(rpcBody(-32603, 'Internal error')));
        }
      }
    },
  });
};

function rpcBody(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.status(status).type('application/json; charset=utf-8').send(rpcBody(code, message));
}
