// The variable feature: reads and writes of PLC variables. Its public face: what the app and other features import.
export { variablesRoutes } from './routes.ts';
export { maxBatchPaths, readVariable, readVariables, writeVariable, type ItemError } from './service.ts';
