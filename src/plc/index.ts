// The PLC model shared by the ADS driver and the simulator: IEC types, their memory layout, the value codec,
// type names, symbol paths and trees, method inputs and file paths. ADS protocol numbers live in ./ads/.
export * from './types.ts';
export {
  alignmentOf,
  alignUp,
  arrayStrides,
  arrayType,
  findMember,
  maxTypeSize,
  primitiveType,
  stringType,
  structType,
} from './memory-layout.ts';
export {
  parseTypeName,
  defaultStringLength,
  typeExprName,
  typeFromExpr,
  type TypeExpr,
} from './type-names.ts';
export { enumBaseRanges } from './scalar-codec.ts';
export { decode, encode, encodeInto, encodeOver, type NonMemberSink } from './codec.ts';
export { IncrementalDecoder } from './incremental-decode.ts';
export { resolvePath, type ResolvedPath } from './symbol-path.ts';
export { symbolNode, symbolTree } from './symbol-tree.ts';
export { findMethod, orderedInputs, returnMemberOf } from './methods.ts';
export { fileNotFound, splitFilePath } from './file-path.ts';
export { errorEntryMembers, errorTypeMembers, timeStructMembers, type ErrorTypeName } from './alarm-entry.ts';
export { parseIecLocation, type IecLocation, type LocatedArea } from './iec-location.ts';
export { decodeCp1252 } from './cp1252.ts';
