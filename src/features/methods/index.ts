// The method call feature: methods of PLC function blocks. Its public face: what the app and other features import.
export { methodsRoutes } from './routes.ts';
export { MethodInvoker } from './service.ts';
