// The PLC list feature: configured PLCs and their status. Its public face: what the app and other features import.
export { plcsRoutes } from './routes.ts';
export { listPlcs, plcStatus } from './service.ts';
