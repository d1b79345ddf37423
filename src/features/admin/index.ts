// The admin feature: stream listing and termination, the audit log, the PLCs' program changes and notification budget. Its public face: what the app and other features import.
export { adminRoutes } from './routes.ts';
export { auditRoutes } from './audit-routes.ts';
export { programChangesRoutes } from './program-changes-routes.ts';
export { subscriptionRoutes } from './subscription-routes.ts';
