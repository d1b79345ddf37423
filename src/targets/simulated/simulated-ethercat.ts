// The EtherCAT port of the in-process simulated target: readings straight from the simulated system, and the
// counter reset as the same FPWR datagram to the slave's registers that travels over ADS for a Real target.
import { AppError } from '../../errors.ts';
import {
  counterResetDatagram,
  masterNetId,
  type EtherCatMasterInfo,
  type EtherCatMasterReading,
} from '../../plc/ethercat/index.ts';
import { exchange } from '../../simulator/ethercat/registers.ts';
import type { EtherCatSystem, SimMaster } from '../../simulator/ethercat/system.ts';
import type { EtherCatPort } from '../ethercat-port.ts';

/** The NetId the simulated system answers on; sim-ads serves the same by default. */
const SYSTEM_NET_ID = '127.0.0.1.1.1';

export class SimulatedEtherCat implements EtherCatPort {
  constructor(
    private readonly system: EtherCatSystem | undefined,
    /** Runs while the target is connected, PLC_UNAVAILABLE otherwise. */
    private readonly run: <T>(fn: () => T) => Promise<T>,
  ) {}

  masters(): Promise<EtherCatMasterInfo[]> {
    return this.run(() =>
      (this.system?.masters ?? []).map((m) => ({
        deviceId: m.deviceId,
        name: m.name,
        amsNetId: masterNetId(SYSTEM_NET_ID, m.deviceId),
      })),
    );
  }

  read(info: EtherCatMasterInfo): Promise<EtherCatMasterReading> {
    return this.run(() => this.#master(info).reading(info.amsNetId));
  }

  resetErrorCounters(info: EtherCatMasterInfo, address: number): Promise<void> {
    return this.run(() => {
      const master = this.#master(info);
      if (!master.slave(address)) {
        throw new AppError(
          'SLAVE_NOT_FOUND',
          `Master ${info.deviceId} has no slave with address ${address}.`,
        );
      }
      const answer = exchange(master, counterResetDatagram(address));
      if (answer.workingCounter === 0) {
        throw new AppError(
          'ADS_ERROR',
          `Slave ${address} did not answer the counter reset (working counter 0).`,
        );
      }
    });
  }

  #master(info: EtherCatMasterInfo): SimMaster {
    const master = this.system?.master(info.deviceId);
    if (!master)
      throw new AppError('MASTER_NOT_FOUND', `No EtherCAT master with device id ${info.deviceId}.`);
    return master;
  }
}
