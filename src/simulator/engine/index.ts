// The simulated PLC engine's public surface, with the PLC model it is built on.
export * from '../../plc/index.ts';
export * from './type-registry.ts';
export { declareType, declareVariable } from './declarations.ts';
export type { AreaName, MemoryArea } from './located-areas.ts';
export { Program, ProgramBuilder, type MethodImpl } from './program.ts';
export type { Watch, WatchChange } from './watch.ts';
export { MemoryFileStore, type FileStore } from './file-store.ts';
export { SimulatedPlc, type PreparedWrite } from './plc.ts';
