// EtherCAT over ADS: the ports, index groups and codes a TwinCAT system answers with, shared by the ADS
// driver and the simulator. Each number names the public source it follows; the few no public source fixes
// are marked "not documented" and listed in README (EtherCAT diagnostics: sources).
import { bitFlags } from '../bit-flags.ts';

/**
 * The I/O server's device list on port 300 (AMSPORT_R0_IO). Source: Beckhoff ADS library,
 * AdsLib/ECatAccess.cpp (`adstool ecat list-masters`): IOADS_IGR_IODEVICESTATE_BASE and IOADS_IOF_*.
 */
export const IoServer = {
  port: 300,
  /** Group of the list; a device's own group is `deviceStateBase + deviceId`. */
  deviceStateBase: 0x5000,
  /** On the base group: u32 device count. */
  offsetDeviceCount: 0x2,
  /** On the base group: u16[count + 1], the count first, then the device ids. */
  offsetDeviceIds: 0x1,
  /** On a device's group: its name, NUL-terminated. */
  offsetDeviceName: 0x1,
  /** On a device's group: its AMS NetId, 6 bytes. */
  offsetDeviceNetId: 0x5,
  /** On a device's group: u16 device type. */
  offsetDeviceType: 0x7,
} as const;

/**
 * Device types of EtherCAT masters, from TwinCAT's Automation Interface (TCatSysManagerLib DeviceTypes):
 * IODEVICETYPE_ETHERCATPROT (111, TwinCAT 3) and IODEVICETYPE_ETHERCAT (94, TwinCAT 2.10).
 */
export const EtherCatDeviceType = { protocol: 111, directModeV210: 94 } as const;

export function isEtherCatMasterType(type: number): boolean {
  return type === EtherCatDeviceType.protocol || type === EtherCatDeviceType.directModeV210;
}

/**
 * The master's own ADS port on its own AMS NetId. Source: TwinCAT System Manager, "EtherCAT: ADS
 * Interface" (port 65535 = general services of the master; ports 1-0xFFFE address one slave).
 */
export const MASTER_ADS_PORT = 0xffff;

/**
 * Index groups of the master port. Source: TwinCAT System Manager, "EtherCAT: ADS Interface", table
 * "Master Ads Port (0xFFFF)", unless marked otherwise. They are what Tc2_EtherCAT's function blocks read.
 */
export const MasterGroup = {
  /** Read IO 0x100: u16 current state (FB_EcGetMasterState). Write with IO = state: request it (FB_EcReqMasterState). */
  state: 0x03,
  /** Read, u16: number of configured slaves (FB_EcGetSlaveCount). */
  slaveCount: 0x06,
  /** Read, u16[n]: the slaves' fixed addresses (FB_EcGetAllSlaveAddr). */
  slaveAddresses: 0x07,
  /**
   * Read IO 0: { u8 state, u8 link }[n] (FB_EcGetAllSlaveStates, ST_EcSlaveState); IO = address: one slave
   * (FB_EcGetSlaveState). Write IO = address, u16 state: request a slave state (FB_EcReqSlaveState).
   */
  slaveStates: 0x09,
  /** Read IO = address: { u32 vendor, product, revision, serial } (FB_EcGetSlaveIdentity). */
  slaveIdentity: 0x11,
  /** Read IO 0: u32[n], ports summed (FB_EcGetAllSlaveCrcErrors); IO = address: u32 per port A-D (ST_EcCrcErrorEx). */
  slaveCrc: 0x12,
  /**
   * ReadWrite: one EtherCAT datagram sent by the master, answered with the slaves' data and working counter.
   * Source: Beckhoff ADS library, AdsLib/ECatAccess.cpp (ECADS_IGRP_MASTER_FLBCMDS, ETYPE_EC_HEADER).
   */
  datagram: 0x2c,
  /** Read: ST_EcSlaveConfigData[n] (FB_EcGetConfSlaves; layout documented, group number not documented). */
  configuredSlaves: 0x0d,
  /** Read: ST_TopologyDataEx[n] (FB_EcGetSlaveTopologyInfo; layout documented, group number not documented). */
  topology: 0x0e,
} as const;

/** Index offsets of MasterGroup.state: 0x100 current state (documented), 0 requested state (not documented). */
export const MasterStateOffset = { current: 0x100, requested: 0x0 } as const;

/**
 * EtherCAT states as ST_EcSlaveState.deviceState and the master's u16 carry them (EC_DEVICE_STATE_*), with
 * the flag bits of a slave. Source: Tc2_EtherCAT, ST_EcSlaveState.
 */
export const EcStateCode = { INIT: 0x01, PREOP: 0x02, BOOT: 0x03, SAFEOP: 0x04, OP: 0x08 } as const;
export const EC_STATE_MASK = 0x0f;
export const EC_STATE_ERROR = 0x10;

/**
 * ST_EcSlaveState.linkState bits (EC_LINK_STATE_*) from bit 0: not present 0x01, without communication 0x02,
 * missing link 0x04, additional link 0x08, port A-D 0x10-0x80. Source: Tc2_EtherCAT, ST_EcSlaveState.
 */
export const LinkBits = bitFlags([
  'notPresent',
  'withoutCommunication',
  'missingLink',
  'additionalLink',
  'portA',
  'portB',
  'portC',
  'portD',
]);

/**
 * EtherCAT datagram commands (ETG.1000.4; the names as Beckhoff's ADS library and ESC data sheets use them).
 * APRD is how `adstool ecat list-masters` counts slaves: every slave increments ADP on the way.
 */
export const DatagramCommand = {
  APRD: 1,
  APWR: 2,
  FPRD: 4,
  FPWR: 5,
  BRD: 7,
  BWR: 8,
} as const;

/** ETYPE_EC_HEADER: cmd u8, idx u8, adp u16, ado u16, length u16, irq u16 (Beckhoff ADS library). */
export const DATAGRAM_HEADER_LENGTH = 10;

/**
 * ESC registers the simulated slaves answer. Source: Beckhoff "EtherCAT Slave Controller, Section II
 * Register Description": 0x0000 type, 0x0010 configured station address, 0x0130 AL status (state | 0x10
 * error), 0x0300-0x0307 per port { invalid frame (CRC) counter u8, RX error counter u8 }, 0x0308-0x030B
 * forwarded RX error counters. Writing any register of 0x0300-0x030B clears all of them.
 */
export const EscRegister = {
  type: 0x0000,
  stationAddress: 0x0010,
  alStatus: 0x0130,
  rxErrorCounters: 0x0300,
  rxErrorCountersEnd: 0x030c,
} as const;

/** ESC counters are u8 and stop at their maximum. */
export const ESC_COUNTER_MAX = 0xff;
