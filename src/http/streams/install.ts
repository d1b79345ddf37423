// Stream machinery for every feature that pushes: the SSE and WebSocket plugins, the connection registry (with its
// metrics), ending streams with their tokens, and ending every stream when the app closes (SIGTERM), before the
// server waits for connections.
import { fastifySSE as fastifySse } from '@fastify/sse';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Settings } from '../../config/schema.ts';
import { StreamRegistry } from './registry.ts';
import type { StreamLedger } from './stream-ledger.ts';
import type { HubTimings } from './signalr/hub-connection.ts';
import { timerClock, TokenDeadlines, type DeadlineClock } from './token-deadlines.ts';

export interface StreamTimings extends HubTimings {
  /** SSE `heartbeat` events this often (Notifications:HeartbeatSeconds). */
  readonly heartbeatMs: number;
}

/** What features use to open streams; part of every feature's context. */
export interface Streams {
  readonly registry: StreamRegistry;
  readonly timings: StreamTimings;
  /** Per-client queue length (Notifications:QueueLength). */
  readonly queueLength: number;
  /** The bounds of SignalR hub connections (Hubs). */
  readonly hubs: Settings['Hubs'];
  /** Ends streams with their tokens; streams outside the registry (MCP) watch their tokens here too. */
  readonly deadlines: TokenDeadlines;
}

// SignalR's own defaults (KeepAliveInterval, ClientTimeoutInterval), which stock clients are tuned to.
const defaultHubTimings = { pingIntervalMs: 15_000, clientTimeoutMs: 30_000 } as const;

export async function installStreams(
  app: FastifyInstance,
  settings: Settings,
  metrics: Registry,
  overrides: Partial<StreamTimings> = {},
  ledger?: StreamLedger,
  tokenClock: DeadlineClock = timerClock(),
): Promise<Streams> {
  const deadlines = new TokenDeadlines(tokenClock);
  const registry = new StreamRegistry(settings.ConnectionLimits, metrics, ledger, deadlines);
  // Registered before the WebSocket plugin's own preClose, so hub clients get a SignalR Close first.
  app.addHook('preClose', (done) => {
    registry.endAll();
    done();
  });
  // A WebSocket upgrade refused by a hook that ran before the plugin's (bad Host header, say) has had its JSON
  // answer; its socket is still in the upgrade state and would hold the server open: close it.
  app.addHook('onResponse', (request, _reply, done) => {
    if (!request.ws && request.raw.headers.upgrade?.toLowerCase() === 'websocket')
      request.raw.socket.destroy();
    done();
  });
  // Heartbeats are named events sent by the writer, not the plugin's comment lines.
  await app.register(fastifySse, { heartbeatInterval: 0 });
  // Hub messages are small method calls; anything larger is refused by ws before it is buffered.
  await app.register(fastifyWebsocket, { options: { maxPayload: settings.Hubs.MaxMessageBytes } });
  const timings: HubTimings = {
    ...defaultHubTimings,
    handshakeTimeoutMs: settings.Hubs.HandshakeTimeoutSeconds * 1000,
  };
  return {
    registry,
    deadlines,
    hubs: settings.Hubs,
    queueLength: settings.Notifications.QueueLength,
    timings: {
      ...timings,
      heartbeatMs: settings.Notifications.HeartbeatSeconds * 1000,
      ...overrides,
    },
  };
}
