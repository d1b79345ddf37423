// ADS/AMS protocol numbers shared by the ADS driver and the simulator's ADS server: AMS/TCP commands, ADS
// command ids, state flags, ports, index groups (including the system service's file commands), states, modes.

export const AMS_TCP_HEADER_LENGTH = 6;
export const AMS_HEADER_LENGTH = 32;

/** First u16 of every AMS/TCP frame. */
export const AmsTcpCommand = {
  AdsCommand: 0x0000,
  PortClose: 0x0001,
  PortConnect: 0x1000,
  RouterNote: 0x1001,
  GetLocalNetId: 0x1002,
} as const;

export const AdsCommand = {
  Invalid: 0,
  ReadDeviceInfo: 1,
  Read: 2,
  Write: 3,
  ReadState: 4,
  WriteControl: 5,
  AddNotification: 6,
  DeleteNotification: 7,
  DeviceNotification: 8,
  ReadWrite: 9,
} as const;

export const StateFlags = {
  Response: 0x0001,
  AdsCommand: 0x0004,
} as const;

/** State flags of a request and of its response over TCP. */
export const REQUEST_FLAGS = StateFlags.AdsCommand;
export const RESPONSE_FLAGS = StateFlags.AdsCommand | StateFlags.Response;

export const AdsPort = {
  /** R0_REALTIME: CPU settings and latency figures. */
  Realtime: 200,
  SystemService: 10000,
  PlcRuntime1: 851,
} as const;

/** Index offsets of the real-time service's group 1 (Beckhoff ADS library, AdsLib/RTimeAccess.h). */
export const RealtimeOffset = {
  ReadLatency: 0x2,
  ResetLatency: 0xb,
  CpuSettings: 0xd,
} as const;

export const IndexGroup = {
  PlcMemory: 0x4040,
  /** Flags (%M) by byte and by bit address (byte * 8 + bit); TwinCAT.Ads PlcRWMB / PlcRWMX. */
  PlcFlags: 0x4020,
  PlcFlagBits: 0x4021,
  /** Process image of the inputs (%I) and outputs (%Q), bytes and bits; TwinCAT.Ads IOImageRWIB/IX/OB/OX. */
  PlcInputs: 0xf020,
  PlcInputBits: 0xf021,
  PlcOutputs: 0xf030,
  PlcOutputBits: 0xf031,
  SymbolHandleByName: 0xf003,
  SymbolValueByName: 0xf004,
  SymbolValueByHandle: 0xf005,
  SymbolReleaseHandle: 0xf006,
  SymbolVersion: 0xf008,
  SymbolInfoByNameEx: 0xf009,
  SymbolUpload: 0xf00b,
  SymbolUploadInfo: 0xf00c,
  DataTypeUpload: 0xf00e,
  SymbolUploadInfo2: 0xf00f,
  DataTypeInfoByNameEx: 0xf011,
  SumRead: 0xf080,
  SumWrite: 0xf081,
  SumReadWrite: 0xf082,
  DeviceData: 0xf100,
  /** System service (port 10000): extended TwinCAT system state. */
  SystemExtendedState: 0xf0,
  FileOpen: 120,
  FileClose: 121,
  FileRead: 122,
  FileWrite: 123,
  FileDelete: 131,
  FileRename: 132,
  FileFind: 133,
  /** System service: cores left to the operating system (SYSTEMSERVICE_SETNUMPROC, u32 written). */
  SetNumProc: 1200,
} as const;

/** ADS state names; the index is the numeric ADS state. */
export const adsStateNames = [
  'Invalid',
  'Idle',
  'Reset',
  'Init',
  'Start',
  'Run',
  'Stop',
  'SaveCfg',
  'LoadCfg',
  'PowerFailure',
  'PowerGood',
  'Error',
  'Shutdown',
  'Suspend',
  'Resume',
  'Config',
  'Reconfig',
  'Stopping',
  'Incompatible',
  'Exception',
] as const;
export type AdsStateName = (typeof adsStateNames)[number];

/** Numeric ADS states by name. */
export const AdsState = Object.freeze(
  Object.fromEntries(adsStateNames.map((name, state) => [name, state])) as Record<AdsStateName, number>,
);

export const TransmissionMode = {
  Cyclic: 3,
  OnChange: 4,
} as const;

/** FILETIME ticks (100 ns) between 1601-01-01 and 1970-01-01. */
const FILETIME_EPOCH_OFFSET = 116444736000000000n;

/** FILETIME (UTC, 100 ns since 1601) of a JavaScript epoch time in milliseconds. */
export function toFileTime(epochMs: number): bigint {
  return BigInt(Math.round(epochMs)) * 10000n + FILETIME_EPOCH_OFFSET;
}

/** Epoch milliseconds of a FILETIME. */
export function fromFileTime(fileTime: bigint): number {
  return Number((fileTime - FILETIME_EPOCH_OFFSET) / 10000n);
}

/** UDP discovery and route service (Beckhoff ADS library, AdsLib/AdsLib.cpp). */
export const ADS_UDP_PORT = 48899;
export const UDP_COOKIE = 0x71146603;
export const UDP_HEADER_LENGTH = 12;

export const UdpService = {
  Discovery: 1,
  AddRoute: 6,
  DeleteRoute: 7,
  Response: 0x80000000,
} as const;

export const UdpTag = {
  Status: 1,
  Password: 2,
  Version: 3,
  OsData: 4,
  HostName: 5,
  NetId: 7,
  RouteName: 12,
  UserName: 13,
} as const;
