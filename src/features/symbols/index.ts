// The symbol feature: symbol browsing and search. Its public face: what the app and other features import.
export { symbolsRoutes } from './routes.ts';
export { symbolBrowserKey, type SymbolBrowser } from './service.ts';
