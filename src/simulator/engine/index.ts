// The simulated PLC engine's public surface, with the PLC model it is built on.
export * from '../../plc/index.ts';
export * from './type-registry.ts';
export { declareType, declareVariable, type TypeDeclaration } from './declarations.ts';
export { areaAt, layoutAreas, type AreaName, type MemoryArea } from './located-areas.ts';
export {
  Program,
  ProgramBuilder,
  type MethodContext,
  type MethodImpl,
  type MethodOutcome,
  type SymbolOptions,
} from './program.ts';
export type { MethodResult } from './invoke.ts';
export type { Watch, WatchChange, WatchOptions } from './watch.ts';
export { MemoryFileStore, type FileStore } from './file-store.ts';
export { SimulatedPlc, type PlcDeviceInfo, type PreparedWrite, type SimulatedPlcOptions } from './plc.ts';
