// The health feature: liveness and readiness. Its public face: what the app and other features import.
export { healthRoutes } from './routes.ts';
export { readinessChecksKey, type HealthCheck } from './service.ts';
