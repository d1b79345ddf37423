// The device feature: device name, runtime version and ADS state. Its public face: what the app and other features import.
export { deviceRoutes } from './routes.ts';
export { deviceState } from './service.ts';
