// The simulated PLC engine's public surface.
export * from './types.ts';
export {
  alignmentOf,
  arrayStrides,
  arrayType,
  findMember,
  primitiveType,
  stringType,
  structType,
} from './layout.ts';
export { parseTypeName, primitiveName, defaultStringLength, type TypeExpr } from './type-names.ts';
export {
  TypeRegistry,
  enumBaseRanges,
  type EnumMemberDecl,
  type MemberDecl,
  type MethodDecl,
  type TypeRef,
} from './type-registry.ts';
export { decode, encode, encodeInto, encodeOver } from './codec.ts';
export { parsePath, resolvePath, type PathSegment, type ResolvedPath } from './path.ts';
export { symbolNode, symbolTree } from './symbol-tree.ts';
export {
  Program,
  ProgramBuilder,
  type MethodContext,
  type MethodImpl,
  type MethodOutcome,
  type SymbolOptions,
} from './program.ts';
export { findMethod, methodOf, orderedInputs, type MethodResult } from './invoke.ts';
export type { Watch, WatchChange, WatchOptions } from './watch.ts';
export { MemoryFileStore, fileNotFound, splitFilePath, type FileStore } from './file-store.ts';
export {
  SimulatedPlc,
  adsStateNames,
  type AdsStateName,
  type PlcDeviceInfo,
  type PreparedWrite,
  type SimulatedPlcOptions,
} from './plc.ts';
