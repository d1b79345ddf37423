// The UDP discovery and route service next to the AMS/TCP port: answers broadcast searches with the
// system's NetId, host name, OS and TwinCAT version, and records the routes engineering tools and
// `adstool addroute` add (optionally checking their password), so the simulated PLC is found like a real one.

import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { AdsPort, UdpService, UdpTag, AdsErrorCode } from '../../plc/ads/index.ts';
import { formatNetId, type AmsAddress } from './protocol/net-id.ts';
import {
  decodeUdpRequest,
  encodeUdpResponse,
  osVersionTag,
  statusTag,
  tagText,
  textTag,
  versionTag,
  type UdpRequest,
} from './protocol/udp-discovery.ts';

export interface AdsRoute {
  name: string;
  netId: string;
  /** Host name or IP address the route points at. */
  address: string;
  userName: string;
}

export interface UdpServiceOptions {
  host: string;
  port: number;
  netId: string;
  hostName: string;
  version: { major: number; minor: number; build: number };
  /** When set, add-route requests must carry this password. */
  routePassword?: string;
  maxRoutes: number;
  onRoute?: (route: AdsRoute) => void;
}

/** The OS a TwinCAT 3.1 XAR reports here: Windows 10 (10.0.19045, VER_PLATFORM_WIN32_NT). */
const OS_VERSION = osVersionTag(10, 0, 19045);

export class UdpDiscoveryService {
  readonly #routes = new Map<string, AdsRoute>();
  #socket: Socket | undefined;

  constructor(private readonly options: UdpServiceOptions) {}

  get routes(): AdsRoute[] {
    return [...this.#routes.values()];
  }

  listen(): Promise<number> {
    const socket = createSocket({ type: this.options.host.includes(':') ? 'udp6' : 'udp4' });
    this.#socket = socket;
    socket.on('message', (message, remote) => this.#onMessage(socket, message, remote));
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port, this.options.host, () => {
        socket.off('error', reject);
        // A bad datagram must never stop the service.
        socket.on('error', () => undefined);
        resolve(socket.address().port);
      });
    });
  }

  close(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    if (!socket) return Promise.resolve();
    return new Promise((resolve) => socket.close(() => resolve()));
  }

  #onMessage(socket: Socket, message: Buffer, remote: RemoteInfo): void {
    let request: UdpRequest | undefined;
    try {
      request = decodeUdpRequest(message);
    } catch {
      return;
    }
    if (!request) return;
    const answer = this.#answer(request, remote);
    if (answer) socket.send(encodeUdpResponse(request, this.#address(), answer), remote.port, remote.address);
  }

  #address(): AmsAddress {
    return { netId: this.options.netId, port: AdsPort.SystemService };
  }

  #answer(request: UdpRequest, remote: RemoteInfo): Array<[number, Buffer]> | undefined {
    const { version } = this.options;
    switch (request.service) {
      case UdpService.Discovery:
        return [
          [UdpTag.HostName, textTag(this.options.hostName)],
          [UdpTag.OsData, OS_VERSION],
          [UdpTag.Version, versionTag(version.major, version.minor, version.build)],
        ];
      case UdpService.AddRoute:
        return [[UdpTag.Status, statusTag(this.#addRoute(request, remote))]];
      case UdpService.DeleteRoute:
        return [[UdpTag.Status, statusTag(this.#deleteRoute(request))]];
      default:
        return undefined;
    }
  }

  #addRoute(request: UdpRequest, remote: RemoteInfo): number {
    const password = this.options.routePassword;
    if (password !== undefined && tagText(request.tags.get(UdpTag.Password)) !== password) {
      // What a TwinCAT system answers to a wrong user or password (ADSERR_DEVICE_INVALIDACCESS).
      return AdsErrorCode.InvalidAccess;
    }
    const netIdBytes = request.tags.get(UdpTag.NetId);
    if (netIdBytes?.length !== 6) return AdsErrorCode.InvalidData;
    const netId = formatNetId(netIdBytes);
    const address = tagText(request.tags.get(UdpTag.HostName)) || remote.address;
    const route: AdsRoute = {
      name: tagText(request.tags.get(UdpTag.RouteName)) || address,
      netId,
      address,
      userName: tagText(request.tags.get(UdpTag.UserName)) ?? '',
    };
    const key = route.name.toUpperCase();
    if (!this.#routes.has(key) && this.#routes.size >= this.options.maxRoutes) return AdsErrorCode.NoMemory;
    this.#routes.set(key, route);
    this.options.onRoute?.(route);
    return 0;
  }

  #deleteRoute(request: UdpRequest): number {
    const name = tagText(request.tags.get(UdpTag.RouteName));
    if (name === undefined || !this.#routes.delete(name.toUpperCase())) return AdsErrorCode.NotFound;
    return 0;
  }
}
