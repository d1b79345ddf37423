// The wire types the console reads, taken from the gateway's own sources (types only: nothing of src/ is bundled).
export type { Alarm, AlarmList } from '../../../src/features/alarms/schemas.ts';
export type { HistoryItem } from '../../../src/features/alarms/service.ts';
export type { AuditPage, AuditRecord } from '../../../src/audit/store.ts';
export type { DirListing, FileContent } from '../../../src/features/files/service.ts';
export type { EtherCatChange } from '../../../src/features/ethercat/monitor.ts';
export type {
  MasterView,
  SlaveView,
  TopologyView,
  WiredSlaveView,
} from '../../../src/features/ethercat/service.ts';
export type { ReadinessAnswer as HealthReport, HealthStatus } from '../../../src/features/health/service.ts';
export type { LifecycleChange } from '../../../src/features/lifecycle/service.ts';
export type { PlcStatus, PlcSummary } from '../../../src/features/plcs/service.ts';
export type { StreamRow } from '../../../src/http/streams/stream-rows.ts';
export type { VariableValue } from '../../../src/features/variables/service.ts';
export type {
  ConnectionState,
  EnumMembers,
  SimulationState,
  SymbolNode,
} from '../../../src/targets/target.ts';

/** GET /console/settings.json: how to sign in and which feature areas are on. */
export interface ConsoleSettings {
  oidc: { authority: string; clientId: string; scope: string } | null;
  roleClaim: string;
  features: Record<string, boolean>;
}
export type { FleetKpis, PlcKpis } from '../../../src/features/alarms/kpis/schemas.ts';
