// The type metadata feature: PLC data type descriptions. Its public face: what the app and other features import.
export { typesRoutes } from './routes.ts';
