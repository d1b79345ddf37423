// The EtherCAT diagnostics feature: masters and slaves, the bus monitor, its readiness check and stream. Its public face: what the app and other features import.
export { etherCatRoutes } from './routes.ts';
export { createEtherCatDiagnostics, etherCatDiagnosticsKey } from './diagnostics.ts';
export { busStatus, crcTotal, needsAttention } from './bus-health.ts';
export { masterView, slaveView } from './service.ts';
export { etherCatSettings } from './settings.ts';
export { checkEtherCatStream, streamEtherCat } from './stream.ts';
