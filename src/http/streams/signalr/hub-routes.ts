// Registers a SignalR hub for a feature: `POST <path>/negotiate` (negotiateVersion 1, WebSockets the one
// transport; pending negotiations bounded per user and in all) and the WebSocket route itself. Both pass the
// guards (token from the Authorization header or `access_token`, policy, plc_access); the connection limit is
// checked before the upgrade, so refusals are JSON. Every hub offers RefreshToken, which moves the connection's
// end to a fresh token's expiry.
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors.ts';
import { principalOf } from '../../../guards/install-guards.ts';
import { ErrorEnvelope } from '../../envelope.ts';
import type { TypeBoxApp } from '../../typebox-app.ts';
import type { Streams } from '../install.ts';
import type { StreamEntry } from '../registry.ts';
import { HubConnection, type ServerMethods } from './hub-connection.ts';
import { PendingNegotiations } from './pending-negotiations.ts';

export interface HubDefinition {
  /** The WebSocket route, e.g. `/api/plcs/:plcId/notifications/ws`; negotiate is `<path>/negotiate`. */
  readonly path: string;
  /** Registry kind, e.g. `notifications.ws`. */
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
  negotiateVersion: Type.Integer(),
  connectionId: Type.String(),
  connectionToken: Type.Optional(Type.String()),
  availableTransports: Type.Array(
    Type.Object({ transport: Type.Literal('WebSockets'), transferFormats: Type.Array(Type.Literal('Text')) }),
  ),
});

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
        summary: 'SignalR negotiate: WebSockets is the one transport (skipNegotiation also works)',
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
      const transports = [{ transport: 'WebSockets' as const, transferFormats: ['Text' as const] }];
      return version >= 1
        ? { negotiateVersion: 1, connectionId, connectionToken, availableTransports: transports }
        : { negotiateVersion: 0, connectionId: connectionToken, availableTransports: transports };
    },
  );

  /** Before the upgrade, so refusals are JSON: a negotiated id must be valid, and the connection limit holds. */
  const admit = async (request: FastifyRequest<{ Querystring: { id?: string } }>): Promise<StreamEntry> => {
    const principal = principalOf(request);
    const user = principal.sub;
    const id = request.query.id;
    if (id !== undefined && !pending.take(id, user, routeUrl(request))) {
      throw new AppError('NOT_FOUND', 'No negotiated connection has this id; negotiate again.');
    }
    const plcId = request.plcTarget?.id ?? null;
    const entry = await streams.registry.reserve(
      { kind: hub.kind, plcId, user, remote: request.ip },
      principal.token,
    );
    // A failed upgrade never reaches the handler: the place is freed with the socket (which may already be gone).
    const socket = request.raw.socket;
    if (socket.destroyed) entry.release();
    else socket.once('close', () => entry.release());
    return entry;
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
      if (request.ws) reserved.set(request, await admit(request));
    },
    handler: () => {
      throw new AppError('VALIDATION_ERROR', 'This is a WebSocket route: connect with a SignalR client.');
    },
    wsHandler: (socket, request) => {
      const entry = reserved.get(request);
      if (entry === undefined) {
        socket.close(1011);
        return;
      }
      const connection = new HubConnection(socket, {
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
    },
  });
}
