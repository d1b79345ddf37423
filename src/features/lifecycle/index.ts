// The lifecycle feature: PLC start, stop and reset. Its public face: what the app and other features import.
export { lifecycleRoutes } from './routes.ts';
