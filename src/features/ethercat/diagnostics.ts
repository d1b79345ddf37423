// EtherCAT diagnostics shared by its routes, the readiness check and the notification streams.
import type { Config } from '../../config/schema.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import { EtherCatMonitor } from './monitor.ts';
import { EtherCatService } from './service.ts';

export interface EtherCatDiagnostics {
  readonly service: EtherCatService;
  /** Polls only once started (the routes start it when the flag is on). */
  readonly monitor: EtherCatMonitor;
}

export function createEtherCatDiagnostics(config: Config, registry: TargetRegistry): EtherCatDiagnostics {
  const service = new EtherCatService(config);
  return { service, monitor: new EtherCatMonitor(registry, config, service) };
}
