// Registers a SignalR hub for a feature: `POST <path>/negotiate` (negotiateVersion 0 or 1; WebSockets,
// ServerSentEvents and LongPolling; pending negotiations bounded per user and in all) and the transports on
// `<path>`: the WebSocket upgrade, `GET ?id=` (SSE with Accept: text/event-stream, else a LongPolling poll),
// `POST ?id=` (what the client sends) and `DELETE ?id=` (the client ends the connection). Every request passes the
// guards (token from the Authorization header or `access_token`, policy, plc_access) and must come from the user
// that negotiated; the connection limit is checked before a connection opens, so refusals are JSON. Every hub
// offers RefreshToken, which moves the connection's end to a fresh token's expiry.
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors.ts';
import { principalOf } from '../../../guards/install-guards.ts';
import { ErrorEnvelope } from '../../envelope.ts';
import type { TypeBoxApp } from '../../typebox-app.ts';
import type { Streams } from '../install.ts';
import type { StreamEntry } from '../registry.ts';
import { HubConnection, type ServerMethods } from './hub-connection.ts';
import type { HubTransport, TransportName } from './hub-transport.ts';
import {
  HttpHubConnections,
  LongPollingTransport,
  SseTransport,
  type HttpHubTransport,
} from './http-transports.ts';
import { PendingNegotiations } from './pending-negotiations.ts';
import { WebSocketTransport } from './websocket-transport.ts';

export interface HubDefinition {
  /** The WebSocket route, e.g. `/api/plcs/:plcId/notifications/ws`; negotiate is `<path>/negotiate`. */
  readonly path: string;
  /**
   * Registry kind on WebSockets, e.g. `notifications.ws`; on the other transports the `.ws` becomes
   * `.hub-sse` or `.hub-longpolling`.
   */
  readonly kind: string;
  /** Guard config (feature flag, policy, plcScoped); the routes are marked as WebSocket routes. */
  readonly config: Omit<FastifyContextConfig, 'websocket'>;
  readonly tag: string;
  /** Server-to-client methods by stream event name. */
  readonly serverMethods: ServerMethods;
  /** A client completed the handshake: register its client methods and start its session. */
  open(connection: HubConnection, request: FastifyRequest): void;
}

const NegotiateResponse = Type.Object({
  negotiateVersion: Type.Integer({
    description: '1 when the request asked for negotiateVersion 1 or more, else 0',
  }),
  connectionId: Type.String({
    description: 'negotiateVersion 0: also the id to connect with (`?id=`); 1: for display only',
  }),
  connectionToken: Type.Optional(
    Type.String({ description: 'negotiateVersion 1: the id to connect with (`?id=`), good once, for 60 s' }),
  ),
  availableTransports: Type.Array(
    Type.Object({
      transport: Type.Union([
        Type.Literal('WebSockets'),
        Type.Literal('ServerSentEvents'),
        Type.Literal('LongPolling'),
      ]),
      transferFormats: Type.Array(Type.Union([Type.Literal('Text'), Type.Literal('Binary')])),
    }),
  ),
});

/** What negotiate offers: the MessagePack protocol (Binary) on every transport but SSE, which carries text only. */
const availableTransports = [
  { transport: 'WebSockets' as const, transferFormats: ['Text' as const, 'Binary' as const] },
  { transport: 'ServerSentEvents' as const, transferFormats: ['Text' as const] },
  { transport: 'LongPolling' as const, transferFormats: ['Text' as const, 'Binary' as const] },
];

const kindSuffix: Readonly<Record<TransportName, string>> = {
  WebSockets: '.ws',
  ServerSentEvents: '.hub-sse',
  LongPolling: '.hub-longpolling',
};

// A negotiated connection token is good for one upgrade, by the same user, within this time.
const negotiationTtlMs = 60_000;

export function registerHub(app: TypeBoxApp, streams: Streams, hub: HubDefinition, now: () => number): void {
  const config = { ...hub.config, websocket: true } as const;
  const pending = new PendingNegotiations(
    {
      ttlMs: negotiationTtlMs,
      maxTotal: streams.hubs.MaxPendingNegotiations,
      maxPerUser: streams.hubs.MaxPendingNegotiationsPerUser,
    },
    now,
  );
  const reserved = new WeakMap<FastifyRequest, StreamEntry>();
  const routeUrl = (request: FastifyRequest): string => request.url.split('?', 1)[0] ?? '';

  app.post(
    `${hub.path}/negotiate`,
    {
      schema: {
        tags: [hub.tag],
        summary:
          'SignalR negotiate: WebSockets, ServerSentEvents (text) or LongPolling; the json or messagepack ' +
          'hub protocol (skipNegotiation also works on WebSockets)',
        querystring: Type.Object({ negotiateVersion: Type.Optional(Type.Integer({ minimum: 0 })) }),
        response: { 200: NegotiateResponse, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
      config,
    },
    (request) => {
      const user = principalOf(request).sub;
      const connectionToken = randomBytes(16).toString('base64url');
      const connectionId = randomBytes(16).toString('base64url');
      const hubUrl = routeUrl(request).replace(/\/negotiate$/, '');
      pending.add(connectionToken, user, hubUrl);
      const version = request.query.negotiateVersion ?? 0;
      return version >= 1
        ? { negotiateVersion: 1, connectionId, connectionToken, availableTransports }
        : { negotiateVersion: 0, connectionId: connectionToken, availableTransports };
    },
  );

  const kindOf = (transport: TransportName): string => hub.kind.replace(/\.ws$/, '') + kindSuffix[transport];

  /**
   * Before a connection opens, so refusals are JSON: a negotiated id must be valid (and is used up), and the
   * connection limit holds. (The HTTP transports always bring an id; a WebSocket may skip negotiation.)
   */
  const admit = async (
    request: FastifyRequest<{ Querystring: { id?: string } }>,
    transport: TransportName,
  ): Promise<StreamEntry> => {
    const principal = principalOf(request);
    const user = principal.sub;
    const id = request.query.id;
    if (id !== undefined && !pending.take(id, user, routeUrl(request))) {
      throw new AppError('NOT_FOUND', 'No negotiated connection has this id; negotiate again.');
    }
    const plcId = request.plcTarget?.id ?? null;
    return streams.registry.reserve(
      { kind: kindOf(transport), plcId, user, remote: request.ip },
      principal.token,
    );
  };

  /** The hub session over `transport`, with RefreshToken and the feature's methods. */
  const openSession = (
    transport: HubTransport,
    entry: StreamEntry,
    request: FastifyRequest,
  ): HubConnection => {
    const connection = new HubConnection(transport, {
      ...streams.timings,
      queueLength: streams.queueLength,
      entry,
      serverMethods: hub.serverMethods,
      log: request.log,
      bounds: streams.hubs,
      now,
    });
    // Every hub: a fresh token moves the connection's end, keeping its subscriptions.
    connection.method('RefreshToken', async (args) => {
      const token = args[0];
      if (args.length !== 1 || typeof token !== 'string' || token.length === 0) {
        throw new AppError('VALIDATION_ERROR', 'RefreshToken takes one argument: the new access token.');
      }
      const renewed = (await request.reauthenticate(token)).token;
      if (renewed !== undefined) entry.renew(renewed);
      const endsAt = entry.endsAt;
      return { expiresAt: endsAt === undefined ? null : new Date(endsAt).toISOString() };
    });
    hub.open(connection, request);
    return connection;
  };

  const http = new HttpHubConnections();
  const pollTimings = {
    pollMs: streams.hubs.LongPollSeconds * 1000,
    disconnectMs: streams.hubs.DisconnectTimeoutSeconds * 1000,
  };
  const IdQuery = Type.Object({ id: Type.String({ minLength: 1 }) });
  /** The SSE or LongPolling connection `?id=` names, if this user opened it on this hub. */
  const httpConnection = (request: FastifyRequest<{ Querystring: { id: string } }>): HttpHubTransport => {
    const transport = http.get(request.query.id, principalOf(request).sub, routeUrl(request));
    if (transport === undefined) {
      throw new AppError('NOT_FOUND', 'No open hub connection has this id; negotiate and connect again.');
    }
    return transport;
  };

  app.route({
    method: 'GET',
    url: hub.path,
    schema: {
      hide: true,
      querystring: Type.Object({
        id: Type.Optional(Type.String()),
        access_token: Type.Optional(Type.String()),
      }),
    },
    config,
    preHandler: async (request) => {
      if (!request.ws) return;
      const entry = await admit(request, 'WebSockets');
      reserved.set(request, entry);
      // A failed upgrade never reaches the handler: the place is freed with the socket (which may already be gone).
      const socket = request.raw.socket;
      if (socket.destroyed) entry.release();
      else socket.once('close', () => entry.release());
    },
    // Not an upgrade: Server-Sent Events or a LongPolling poll of a negotiated connection.
    handler: async (request, reply) => {
      // A HEAD would take a poll's messages and drop them with the body, or use up a negotiated id.
      if (request.method !== 'GET') throw new AppError('METHOD_NOT_ALLOWED', 'Use GET on a hub connection.');
      const id = request.query.id;
      if (id === undefined || id.length === 0) {
        throw new AppError(
          'VALIDATION_ERROR',
          'Connect with a SignalR client: a WebSocket upgrade, or ?id= from negotiate for ServerSentEvents or LongPolling.',
        );
      }
      const user = principalOf(request).sub;
      const url = routeUrl(request);
      const open = http.get(id, user, url);
      if (open instanceof LongPollingTransport) return poll(open, reply);
      if (open !== undefined) {
        throw new AppError(
          'HUB_TRANSPORT_CONFLICT',
          'This connection already has its Server-Sent Events stream; send with POST ?id=.',
        );
      }
      const sse = (request.headers.accept ?? '').includes('text/event-stream');
      const entry = await admit(request, sse ? 'ServerSentEvents' : 'LongPolling');
      if (sse) {
        reply.hijack();
        const response = reply.raw;
        response.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
        });
        // Some data at once, so the client's EventSource opens before the first message.
        response.write(':\r\n');
        const transport = new SseTransport(response);
        http.add(id, user, url, transport);
        response.once('close', () => http.delete(id));
        openSession(transport, entry, request);
        return reply;
      }
      const transport = new LongPollingTransport(pollTimings, () => http.delete(id));
      http.add(id, user, url, transport);
      openSession(transport, entry, request);
      return poll(transport, reply);
    },
    wsHandler: (socket, request) => {
      const entry = reserved.get(request);
      if (entry === undefined) {
        socket.close(1011);
        return;
      }
      openSession(new WebSocketTransport(socket), entry, request);
    },
  });

  const poll = async (transport: LongPollingTransport, reply: FastifyReply): Promise<FastifyReply> => {
    const answer = await transport.poll(reply.raw);
    if (answer.status === 204) return reply.code(204).send();
    const binary = typeof answer.body !== 'string';
    return reply
      .code(200)
      .header('cache-control', 'no-cache')
      .type(binary ? 'application/octet-stream' : 'text/plain; charset=utf-8')
      .send(answer.body);
  };

  // What the client sends arrives as it is, whatever its content type, up to Hubs:MaxMessageBytes (else 413).
  void app.register((untyped, _options, registered) => {
    const scope = untyped.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: streams.hubs.MaxMessageBytes },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      hub.path,
      {
        schema: { hide: true, querystring: IdQuery },
        config: hub.config,
        bodyLimit: streams.hubs.MaxMessageBytes,
      },
      async (request, reply) => {
        const transport = httpConnection(request);
        const body: unknown = request.body;
        if (Buffer.isBuffer(body) && body.length > 0) transport.receive(body);
        return reply.code(200).send();
      },
    );
    scope.delete(
      hub.path,
      { schema: { hide: true, querystring: IdQuery }, config: hub.config },
      async (request, reply) => {
        httpConnection(request).terminate();
        return reply.code(202).send();
      },
    );
    registered();
  });
}
