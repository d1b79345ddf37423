// The EtherCAT part of the PlcTarget port: the masters a PLC's I/O server lists, one consistent reading of a
// master with its slaves, and the reset of a slave's error counters. Both drivers implement it.
import type { EtherCatMasterInfo, EtherCatMasterReading } from '../plc/ethercat/index.ts';

export type {
  EtherCatMasterInfo,
  EtherCatMasterReading,
  EtherCatSlaveReading,
  EtherCatState,
  LinkState,
  PortCounters,
  PortNeighbours,
} from '../plc/ethercat/index.ts';
export { etherCatStates, linkStates, portNames } from '../plc/ethercat/index.ts';

/**
 * Operations throw AppError: PLC_UNAVAILABLE, ADS_ERROR, ADS_TIMEOUT like every port call; MASTER_NOT_FOUND
 * for a master the PLC no longer lists; SLAVE_NOT_FOUND for an address the master does not have.
 */
export interface EtherCatPort {
  /** The EtherCAT masters among the I/O server's devices, by device id. */
  masters(): Promise<EtherCatMasterInfo[]>;
  /** The master's states and every slave's identity, state, link, CRC counters and wiring, in bus order. */
  read(master: EtherCatMasterInfo): Promise<EtherCatMasterReading>;
  /**
   * Clears the slave's RX error (CRC) counters by writing its ESC registers 0x0300-0x030B through the master;
   * ADS_ERROR when the slave does not answer (working counter 0).
   */
  resetErrorCounters(master: EtherCatMasterInfo, address: number): Promise<void>;
}
