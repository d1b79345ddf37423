// The ADS/AMS TCP server in front of one SimulatedPlc: listens, accepts clients in router mode (port
// connect) or with a fixed local address, and serves the PLC runtime port and the system service.

import { createServer, type AddressInfo, type Server } from 'node:net';
import { hostname } from 'node:os';
import { adsStateNames, ADS_UDP_PORT, AdsPort } from '../../plc/ads/index.ts';
import type { Program, SimulatedPlc } from '../engine/index.ts';
import { AdsConnection } from './client-connection.ts';
import { Dispatcher, type PortService } from './dispatcher.ts';
import { EtherCatRouting } from './ethercat-routing.ts';
import { FileService } from './file-service.ts';
import { HandleRegistry } from './handle-registry.ts';
import { NotificationHub, type NotificationCounters } from './notification-hub.ts';
import { formatAmsAddress, formatNetId, parseNetId, type AmsAddress } from './protocol/net-id.ts';
import { quietRealtimeSettings, RealtimeService, type RealtimeSettings } from './realtime-service.ts';
import { RuntimeService } from './runtime-service.ts';
import { SymbolService } from './symbol-service.ts';
import { SystemService } from './system-service.ts';
import { UdpDiscoveryService, type AdsRoute } from './udp-service.ts';

export interface AdsServerOptions {
  plc: SimulatedPlc;
  /** Interface to bind; loopback by default (ADS has no authentication). */
  host?: string;
  /** TCP port; 48898 is the AMS router port, 0 picks a free one. */
  port?: number;
  /** The AMS NetId of the simulated system. */
  netId?: string;
  /** ADS port of the PLC runtime. */
  adsPort?: number;
  /** Period of the notification sampling timer, ms. */
  tickMs?: number;
  maxClients?: number;
  maxFrameBytes?: number;
  /**
   * Notifications one client connection may hold, its system ones (state, symbol version) included; past it
   * AddNotification answers 1814 (no more notification handles), as TwinCAT does past its per-route limit.
   */
  maxNotificationsPerClient?: number;
  /** Variable handles per client AMS address. */
  maxHandlesPerClient?: number;
  /** Client AMS addresses holding handles at once (the least recently used is dropped beyond it). */
  maxHandleOwners?: number;
  maxSumCommands?: number;
  /** UDP discovery and route service on the same host; off when absent. */
  udp?: UdpOptions;
  /** Figures of the real-time service (port 200); a quiet 4-core system by default. */
  realtime?: RealtimeSettings;
  /** Failures that are bugs rather than bad requests (the request is answered with error 1792). */
  onError?: (err: unknown) => void;
  /** What happens to client connections (for logs and diagnostics). */
  onClient?: (event: ClientEvent) => void;
}

/**
 * A client connected or closed, or stalled: it stopped reading, so the server stopped answering (and
 * reading) it until it takes the answers it has been sent.
 */
interface ClientEvent {
  kind: 'connected' | 'closed' | 'stalled';
  /** The client's id, as in stats(). */
  id: number;
}

export interface UdpOptions {
  /** 48899 by default; 0 picks a free one. */
  port?: number;
  /** Reported by discovery; the machine's host name by default. */
  hostName?: string;
  routePassword?: string;
  maxRoutes?: number;
  onRoute?: (route: AdsRoute) => void;
}

export interface AdsServerAddress {
  host: string;
  port: number;
  /** The UDP discovery port, when the service runs. */
  udpPort?: number;
  netId: string;
  adsPort: number;
}

interface AdsClientStats {
  id: number;
  remote: string;
  amsAddress: string | undefined;
  requests: number;
  /** Response and notification bytes written but not yet taken by the client. */
  unsentBytes: number;
  handles: number;
  notifications: NotificationCounters;
}

interface AdsServerStats {
  connections: number;
  notifications: number;
  clients: AdsClientStats[];
}

/** The server's public surface: see createAdsServer. */
export interface AdsServer {
  /** Starts listening; resolves with the bound address. */
  listen(): Promise<AdsServerAddress>;
  /** Stops listening, disconnects every client and stops the timers; the server cannot listen again. */
  close(): Promise<void>;
  address(): AdsServerAddress | undefined;
  stats(): AdsServerStats;
  /** Routes added through the UDP route service. */
  routes(): AdsRoute[];
  /**
   * A program download while serving, as TwinCAT does it: the program and its memory are replaced, the symbol
   * version goes up (clients are notified), every variable handle and memory notification becomes invalid.
   * Answers the new symbol version.
   */
  download(program: Program): number;
}

const LOOPBACK_NET_ID = '127.0.0.1.1.1';
const FIRST_DYNAMIC_PORT = 32768;

/** Creates (does not start) an ADS server in front of `options.plc`. */
export function createAdsServer(options: AdsServerOptions): AdsServer {
  const plc = options.plc;
  const host = options.host ?? '127.0.0.1';
  const netId = formatNetId(parseNetId(options.netId ?? LOOPBACK_NET_ID));
  const adsPort = options.adsPort ?? AdsPort.PlcRuntime1;
  const maxClients = options.maxClients ?? 256;
  const onError = options.onError ?? ((): void => undefined);

  let nextHandle = 0x1000;
  const handles = new HandleRegistry({
    nextId: () => (nextHandle = nextHandle >= 0xffffff00 ? 0x1000 : nextHandle + 1),
    maxPerOwner: options.maxHandlesPerClient ?? 10_000,
    maxOwners: options.maxHandleOwners ?? 1024,
  });
  const stopWatchingLoads = plc.onLoad(() => handles.invalidateAll());
  const symbols = new SymbolService(plc);
  const hub = new NotificationHub(plc, {
    tickMs: options.tickMs ?? 10,
    maxPerClient: options.maxNotificationsPerClient ?? 10_000,
    maxBufferedBytes: 8 * 1024 * 1024,
    stateBytes: () => {
      const out = Buffer.alloc(4);
      out.writeUInt16LE(adsStateNames.indexOf(plc.adsState), 0);
      return out;
    },
  });
  const runtime = new RuntimeService(plc, symbols, hub, handles, options.maxSumCommands ?? 10_000);
  const system: SystemService = new SystemService(plc, new FileService(plc.files), () => realtime);
  const realtime = new RealtimeService(options.realtime ?? quietRealtimeSettings(), () => system.running);
  // The I/O server on our NetId, and every EtherCAT master on its own NetId, as a TwinCAT router routes them.
  const ethercat = new EtherCatRouting(plc.ethercat, netId);
  const dispatcher = new Dispatcher({
    isOwnNetId: (id) => id === netId || id === LOOPBACK_NET_ID || ethercat.isMasterNetId(id),
    service: (port, target): PortService | undefined => {
      if (ethercat.isMasterNetId(target)) return ethercat.master(target, port);
      if (port === AdsPort.SystemService) return system;
      if (port === ethercat.ioPort) return ethercat.io;
      if (port === AdsPort.Realtime) return realtime;
      if (port === adsPort && system.running) return runtime;
      return undefined;
    },
    onUnexpectedError: onError,
  });

  const info = plc.deviceInfo();
  const udp = options.udp
    ? new UdpDiscoveryService({
        host,
        port: options.udp.port ?? ADS_UDP_PORT,
        netId,
        hostName: options.udp.hostName ?? hostname(),
        version: { major: info.major, minor: info.minor, build: info.build },
        maxRoutes: options.udp.maxRoutes ?? 128,
        ...(options.udp.routePassword !== undefined ? { routePassword: options.udp.routePassword } : {}),
        ...(options.udp.onRoute ? { onRoute: options.udp.onRoute } : {}),
      })
    : undefined;
  const connections = new Set<AdsConnection>();
  let nextConnection = 1;
  let nextPort = FIRST_DYNAMIC_PORT;
  let server: Server | undefined;
  let bound: AdsServerAddress | undefined;
  let closed = false;

  function assignAddress(remoteAddress: string | undefined): AmsAddress {
    const used = new Set([...connections].map((c) => c.assigned?.port));
    do {
      nextPort = nextPort >= 65535 ? FIRST_DYNAMIC_PORT : nextPort + 1;
    } while (used.has(nextPort));
    // A remote IPv4 client gets "<ip>.1.1" as a TwinCAT router would; local clients share our NetId.
    const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(remoteAddress ?? '')?.[1];
    const clientNetId = v4 && !v4.startsWith('127.') ? `${v4}.1.1` : netId;
    return { netId: clientNetId, port: nextPort };
  }

  const connectionHost = {
    dispatcher,
    maxFrameBytes: options.maxFrameBytes ?? 4 * 1024 * 1024,
    maxFilesPerClient: 64,
    assignAddress,
    serverNetId: netId,
    onClose: (c: AdsConnection) => {
      connections.delete(c);
      hub.dropSession(c);
      // A router port closes with its connection; a fixed address keeps its handles for its next one.
      if (c.assigned) handles.drop(c.assigned);
      options.onClient?.({ kind: 'closed', id: c.id });
    },
    onStalled: (c: AdsConnection) => options.onClient?.({ kind: 'stalled', id: c.id }),
  };

  return {
    listen(): Promise<AdsServerAddress> {
      if (server) return Promise.reject(new Error('The ADS server is already listening'));
      if (closed) return Promise.reject(new Error('A closed ADS server cannot listen again'));
      const s = createServer((socket) => {
        if (connections.size >= maxClients) {
          socket.destroy();
          return;
        }
        const connection = new AdsConnection(nextConnection++, socket, connectionHost);
        connections.add(connection);
        options.onClient?.({ kind: 'connected', id: connection.id });
      });
      server = s;
      return new Promise<AddressInfo>((resolve, reject) => {
        s.once('error', reject);
        s.listen(options.port ?? 48898, host, () => {
          s.off('error', reject);
          resolve(s.address() as AddressInfo);
        });
      }).then(async (a) => {
        const udpPort = udp
          ? await udp.listen().catch(async (err: unknown) => {
              await new Promise((r) => s.close(r));
              server = undefined;
              throw err;
            })
          : undefined;
        bound = { host: a.address, port: a.port, netId, adsPort, ...(udpPort ? { udpPort } : {}) };
        return bound;
      });
    },

    async close(): Promise<void> {
      closed = true;
      stopWatchingLoads();
      await udp?.close();
      handles.clear();
      hub.close();
      for (const c of [...connections]) c.close();
      const s = server;
      server = undefined;
      bound = undefined;
      if (!s) return;
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },

    address: () => bound,

    routes: () => udp?.routes ?? [],

    download(program: Program): number {
      // The PLC's load listeners (handles here, notifications in the hub) do the invalidation.
      plc.load(program);
      return plc.symbolVersion;
    },

    stats(): AdsServerStats {
      return {
        connections: connections.size,
        notifications: hub.size,
        clients: [...connections].map((c) => {
          const address = c.assigned ?? c.source;
          return {
            id: c.id,
            remote: c.remote,
            amsAddress: address ? formatAmsAddress(address) : undefined,
            requests: c.requests,
            unsentBytes: c.bufferedBytes,
            handles: handles.count(address),
            notifications: hub.counters(c),
          };
        }),
      };
    },
  };
}
