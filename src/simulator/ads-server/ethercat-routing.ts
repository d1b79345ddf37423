// Where EtherCAT requests go on the simulated system: the I/O server on the system's own NetId, and each
// master on the NetId the I/O server lists for it (port 0xFFFF), as a TwinCAT router forwards them.
import { IoServer, MASTER_ADS_PORT, masterNetId } from '../../plc/ethercat/index.ts';
import type { EtherCatSystem } from '../ethercat/system.ts';
import { EtherCatMasterService } from './ethercat-master-service.ts';
import { IoService } from './io-service.ts';

export class EtherCatRouting {
  readonly ioPort = IoServer.port;
  readonly io: IoService;
  readonly #masters = new Map<string, EtherCatMasterService>();

  constructor(system: EtherCatSystem | undefined, systemNetId: string) {
    this.io = new IoService(system, systemNetId);
    for (const m of system?.masters ?? []) {
      this.#masters.set(masterNetId(systemNetId, m.deviceId), new EtherCatMasterService(m));
    }
  }

  isMasterNetId(netId: string): boolean {
    return this.#masters.has(netId);
  }

  /** The master's port; its other ports (one per slave, for mailbox services) are not simulated. */
  master(netId: string, port: number): EtherCatMasterService | undefined {
    return port === MASTER_ADS_PORT ? this.#masters.get(netId) : undefined;
  }
}
