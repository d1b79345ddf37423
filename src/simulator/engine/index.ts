// The simulated PLC engine's public surface, with the PLC model it is built on.
export * from '../../plc/index.ts';
export {
  TypeRegistry,
  type EnumMemberDecl,
  type MemberDecl,
  type MethodDecl,
  type TypeRef,
} from './type-registry.ts';
export {
  Program,
  ProgramBuilder,
  type MethodContext,
  type MethodImpl,
  type MethodOutcome,
  type SymbolOptions,
} from './program.ts';
export { findMethod, type MethodResult } from './invoke.ts';
export type { Watch, WatchChange, WatchOptions } from './watch.ts';
export { MemoryFileStore, type FileStore } from './file-store.ts';
export { SimulatedPlc, type PlcDeviceInfo, type PreparedWrite, type SimulatedPlcOptions } from './plc.ts';
