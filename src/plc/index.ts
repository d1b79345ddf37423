// The PLC model shared by the ADS driver and the simulator: IEC types, their memory layout, the value codec,
// type names, symbol paths and trees, method inputs and file paths. ADS protocol numbers live in ./ads/.
export * from './types.ts';
export { arrayStrides, arrayType, findMember, primitiveType, stringType } from './memory-layout.ts';
export { parseTypeName, typeFromExpr, type TypeExpr } from './type-names.ts';
export { enumBaseRanges } from './scalar-codec.ts';
export { decode, encode, encodeOver, type NonMemberSink } from './codec.ts';
export { IncrementalDecoder } from './incremental-decode.ts';
export { resolvePath } from './symbol-path.ts';
export { symbolNode } from './symbol-tree.ts';
export { findMethod, orderedInputs, returnMemberOf } from './methods.ts';
export { fileNotFound, splitFilePath } from './file-path.ts';
export { errorEntryMembers, errorTypeMembers, timeStructMembers } from './alarm-entry.ts';
