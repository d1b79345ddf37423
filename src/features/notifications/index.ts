// The notifications feature: variable change streams over SSE and SignalR. Its public face: what the app and other features import.
export { notificationsRoutes } from './routes.ts';
export { notificationServiceKey } from './service.ts';
export type { Membership, SharedSubscriptions, SymbolClient } from './shared-subscriptions.ts';
