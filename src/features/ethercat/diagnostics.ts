// EtherCAT diagnostics shared by its routes, the readiness check and the notification streams.
import type { Config } from '../../config/schema.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import { EtherCatMonitor } from './monitor.ts';
import { EtherCatService } from './service.ts';

export interface EtherCatDiagnostics {
  readonly service: EtherCatService;
  /** Polls only once started (the routes start it when the flag is on). */
  readonly monitor: EtherCatMonitor;
}

/** Published by the app before the features register, for every feature that reads the buses. */
export const etherCatDiagnosticsKey = new ServiceKey<EtherCatDiagnostics>('EtherCAT diagnostics');

export function createEtherCatDiagnostics(config: Config, registry: TargetRegistry): EtherCatDiagnostics {
  const service = new EtherCatService(config);
  return { service, monitor: new EtherCatMonitor(registry, config, service) };
}
