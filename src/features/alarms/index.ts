// The alarm feature: monitoring, journal, routes and streams; in cluster mode its leases in Redis. Its public face: what the app and other features import.
export { alarmsRoutes } from './routes.ts';
export { alarmServiceKey, type AlarmService } from './service.ts';
export { parseAcceptLanguage } from './text-catalog.ts';
export { alarmArchiveKey } from './archive.ts';
export type { JournalEntry } from './journal.ts';
export type { AlarmSource } from './alarm-source.ts';
export type { Alarm } from './schemas.ts';
export { parseInclude, type Include } from './management.ts';
export type { ShelvingEntry } from './shelving.ts';
export type { AlarmReading } from './reading.ts';
export { alarmKpisKey } from './kpis/service.ts';
