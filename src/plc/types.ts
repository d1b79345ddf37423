// The PLC's type model: IEC 61131-3 types as TwinCAT lays them out in memory, and the JSON-safe values,
// symbol trees and file entries they read as. Shared by the ADS driver and the simulator.

export const primitiveSizes = {
  BOOL: 1,
  BYTE: 1,
  WORD: 2,
  DWORD: 4,
  LWORD: 8,
  SINT: 1,
  USINT: 1,
  INT: 2,
  UINT: 2,
  DINT: 4,
  UDINT: 4,
  LINT: 8,
  ULINT: 8,
  REAL: 4,
  LREAL: 8,
  TIME: 4,
  LTIME: 8,
  DATE: 4,
  DT: 4,
  TOD: 4,
} as const;

export type PrimitiveName = keyof typeof primitiveSizes;

/** Long IEC names that TwinCAT also accepts for the same type. */
export const primitiveAliases: Readonly<Record<string, PrimitiveName>> = {
  DATE_AND_TIME: 'DT',
  TIME_OF_DAY: 'TOD',
};

export interface PrimitiveType {
  kind: 'primitive';
  name: PrimitiveName;
  size: number;
}

/** STRING(n): n characters of cp1252 + NUL (n + 1 bytes). WSTRING(n): UTF-16LE, 2 (n + 1) bytes. */
export interface StringType {
  kind: 'string';
  name: string;
  length: number;
  wide: boolean;
  size: number;
}

export interface EnumType {
  kind: 'enum';
  name: string;
  /** The integer type the enum is stored as (INT by default in TwinCAT). */
  base: PrimitiveName;
  size: number;
  /** Declaration order; values may have gaps, need not start at zero and may be negative. */
  members: ReadonlyArray<{ name: string; value: number }>;
}

export interface StructMember {
  name: string;
  type: PlcType;
  /** Byte offset inside the struct. */
  offset: number;
  comment?: string;
}

export interface MethodParameter {
  name: string;
  type: PlcType;
  direction: 'in' | 'out' | 'inout';
}

/** A method of a function block, callable over ADS RPC when it carries {attribute 'TcRpcEnable'}. */
export interface MethodDef {
  name: string;
  returnType: PlcType | null;
  parameters: readonly MethodParameter[];
  comment?: string;
  /** Method attributes; RPC-callable methods carry `TcRpcEnable`. */
  attributes?: readonly TypeAttribute[];
}

export interface StructType {
  kind: 'struct';
  name: string;
  size: number;
  members: readonly StructMember[];
  /** Methods of a function block (empty for a plain struct). */
  methods: readonly MethodDef[];
  comment?: string;
}

export interface ArrayDimension {
  start: number;
  length: number;
}

/** Name as TwinCAT spells it: `ARRAY [1..16] OF ST_HmiAxis`. */
export interface ArrayType {
  kind: 'array';
  name: string;
  element: PlcType;
  dimensions: readonly ArrayDimension[];
  size: number;
}

export type PlcType = PrimitiveType | StringType | EnumType | StructType | ArrayType;

/** A top-level variable of the program, stored in the PLC data area at `offset`. */
export interface SymbolDef {
  /** Full instance path, e.g. `GVL_HMI.stMachine` or `MAIN.nSpeed`. */
  name: string;
  type: PlcType;
  offset: number;
  comment: string;
}

/** Name/value attribute as TwinCAT attaches it to methods and types (for example `TcRpcEnable`). */
export interface TypeAttribute {
  name: string;
  value: string;
}

/**
 * A JSON-safe PLC value (64-bit integers as decimal strings, DATE/DT as ISO strings, TIME/TOD as
 * milliseconds). Enums are their integer, member or not (names come from the enum's members); structs are
 * objects by member name; arrays are arrays.
 */
export type PlcValue = boolean | number | string | null | PlcValue[] | { [member: string]: PlcValue };

export interface SymbolNode {
  instancePath: string;
  typeName: string;
  size: number;
  comment: string;
  /** Struct members and array elements (`path[i]`), or null for a leaf. */
  children: SymbolNode[] | null;
}

/** A method call's inputs: positional, or by parameter name (case-insensitive). */
export type MethodArguments = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface MethodResult {
  returnValue: PlcValue;
  outParameters: Record<string, PlcValue>;
  /** For an enum return value that names a member: its name, for callers that read answers by name. */
  returnMember?: string;
}

export interface FileEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
  modified: Date;
}

/** A file opened for reading in chunks, so a download never holds more than a chunk of it. */
export interface FileReader {
  /** The size when the file was opened; a reader never returns more than this in all. */
  readonly size: number;
  /** The next bytes, at most `max` of them; an empty buffer at the end of the file. */
  read(max: number): Promise<Buffer>;
  /** Releases the file (a PLC file handle); safe to call more than once. */
  close(): Promise<void>;
}
