// The ADS/AMS TCP server of the simulator: serves any SimulatedPlc to ADS clients.
export {
  createAdsServer,
  type AdsClientStats,
  type AdsServer,
  type AdsServerAddress,
  type AdsServerOptions,
  type AdsServerStats,
  type UdpOptions,
} from './server.ts';
export type { NotificationCounters } from './notification-hub.ts';
export type { AdsRoute } from './udp-service.ts';
