// /mcp (flag Mcp): the Model Context Protocol over Streamable HTTP (POST requests, GET server stream, DELETE to
// end a session). The guards verify the bearer token first, so a bad token is a 401 before any MCP message;
// each session belongs to its user and is served by its own SDK transport and server. Every JSON-RPC message
// spends the caller's GlobalPerUser budget, a batch one per message (the POST itself spent the first).
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAdmission } from '../../guards/admission.ts';
import { principalOf } from '../../guards/install-guards.ts';
import type { RateLimits } from '../../guards/rate-limit/rate-limits.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { tokenEndEvents } from '../../http/streams/sse-stream.ts';
import { attachPrincipal } from './caller.ts';
import { createGuarded } from './guarded.ts';
import { mcpResponses } from './openapi-responses.ts';
import { promptsPart } from './prompts.ts';
import { resourcesPart } from './resources.ts';
import { createSessionServer, type SessionPart } from './session-server.ts';
import { SessionTable, type SessionHandle } from './sessions.ts';
import { ToolRunner } from './tool-kit.ts';
import { ToolSlots } from './tool-slots.ts';
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
    slots: new ToolSlots({ perUser: settings.MaxConcurrentToolsPerUser, total: settings.MaxConcurrentTools }),
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
    config: { feature: 'Mcp', authenticate: true, openapi: { responses: mcpResponses } },
    // Past it fastify answers 413 PAYLOAD_TOO_LARGE in the envelope without reading on; a body sent too slowly is
    // cut by the server's Http.RequestTimeoutMs, as on every route.
    bodyLimit: settings.MaxBodyBytes,
    handler: async (request, reply) => {
      const principal = principalOf(request);
      await spendPerMessage(context.limits, principal.sub, request.body);
      await sessions.sweep();
      const header = request.headers['mcp-session-id'];
      let session: Session | undefined;
      if (typeof header === 'string') {
        session = sessions.use(header, principal.sub);
        // The MCP rule for an unknown or expired session: 404, and the client starts a new one.
        if (session === undefined)
          return rpcError(reply, 404, -32001, 'Session not found; initialize a new one.');
      } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
        // Held until the transport has added the session (or refused the request), so initializations sent at
        // the same moment cannot all pass the check before any is counted.
        const reserved = sessions.reserve(principal.sub);
        try {
          session = await open(principal.sub);
          return await serve(session, request, reply);
        } finally {
          reserved();
        }
      } else {
        return rpcError(reply, 400, -32000, 'Send the Mcp-Session-Id header, or initialize a session first.');
      }
      return serve(session, request, reply);
    },
  });

  const serve = async (
    session: Session,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    const principal = principalOf(request);
    attachPrincipal(request.raw, principal);
    if (request.method === 'GET') {
      const listening = session;
      listening.openStreams++;
      request.raw.once('close', () => void listening.openStreams--);
      // The server stream ends with the token that opened it: `event: error` TOKEN_EXPIRED/TOKEN_REVOKED.
      const token = principal.token;
      if (token !== undefined) {
        const response = reply.raw;
        const watch = context.streams.deadlines.watch(token, (reason) => {
          if (response.headersSent && !response.writableEnded) response.write(tokenEndEvents[reason]);
          response.end();
        });
        response.once('close', () => watch.cancel());
      }
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
    return reply;
  };
};

/** A batch spends GlobalPerUser once per message beyond the first; refused (429) as soon as the budget is out. */
async function spendPerMessage(limits: RateLimits, sub: string, body: unknown): Promise<void> {
  if (!Array.isArray(body)) return;
  for (let i = 1; i < body.length; i++) {
    const spent = limits.global(sub);
    if (spent instanceof Promise) await spent;
  }
}

function rpcBody(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.status(status).type('application/json; charset=utf-8').send(rpcBody(code, message));
}
