// The web console feature: serves the built console. Its public face: what the app and other features import.
export { consoleRoutes } from './routes.ts';
