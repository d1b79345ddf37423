// The EtherCAT port over ADS: the device list of the PLC's I/O server (port 300), then each master on its own
// AMS NetId, port 0xFFFF, through the same connection (the router forwards by target NetId), as Beckhoff's
// `adstool ecat list-masters` does. Index groups and layouts: plc/ethercat (each with its source).
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { AdsErrorCode } from '../../plc/ads/index.ts';
import {
  CONFIG_DATA_SIZE,
  CRC_COUNTERS_SIZE,
  counterResetDatagram,
  decodeConfigData,
  decodeCrcCounters,
  decodeDatagram,
  decodeSlaveState,
  decodeTopology,
  encodeDatagram,
  IoServer,
  isEtherCatMasterType,
  MASTER_ADS_PORT,
  MasterGroup,
  MasterStateOffset,
  openPorts,
  SLAVE_STATE_SIZE,
  stateOf,
  TOPOLOGY_SIZE,
  type EtherCatMasterInfo,
  type EtherCatMasterReading,
  type EtherCatSlaveReading,
} from '../../plc/ethercat/index.ts';
import { decodeCp1252 } from '../../plc/index.ts';
import type { EtherCatPort } from '../ethercat-port.ts';
import { adsCodeOf } from './ads-errors.ts';

type Use = <T>(what: string, fn: (client: Client) => Promise<T>) => Promise<T>;
type Target = { amsNetId: string; adsPort: number };

/** More than any bus has (TwinCAT's EC_MAX_SLAVES is far lower): guards against a corrupt count. */
const MAX_SLAVES = 4096;
const MAX_DEVICES = 256;
const NAME_LENGTH = 255;

/** A NetId the I/O server gives relative (first four octets 0) belongs to the system it was read from. */
function resolveNetId(raw: Buffer, systemNetId: string): string {
  const octets = [...raw.subarray(0, 6)];
  if (octets.slice(0, 4).every((o) => o === 0)) {
    systemNetId
      .split('.')
      .slice(0, 4)
      .forEach((o, i) => (octets[i] = Number(o)));
  }
  return octets.join('.');
}

export class AdsEtherCat implements EtherCatPort {
  constructor(
    private readonly use: Use,
    private readonly systemNetId: string,
  ) {}

  masters(): Promise<EtherCatMasterInfo[]> {
    return this.use('Listing EtherCAT masters', async (client) => {
      const io: Target = { amsNetId: this.systemNetId, adsPort: IoServer.port };
      const base = IoServer.deviceStateBase;
      const count = Math.min(
        (await client.readRaw(base, IoServer.offsetDeviceCount, 4, io)).readUInt32LE(0),
        MAX_DEVICES,
      );
      if (count === 0) return [];
      const ids = await client.readRaw(base, IoServer.offsetDeviceIds, 2 * (count + 1), io);
      const out: EtherCatMasterInfo[] = [];
      for (let i = 1; i <= count && 2 * i + 2 <= ids.length; i++) {
        const deviceId = ids.readUInt16LE(2 * i);
        const group = base + deviceId;
        const type = (await client.readRaw(group, IoServer.offsetDeviceType, 2, io)).readUInt16LE(0);
        if (!isEtherCatMasterType(type)) continue;
        const name = await client.readRaw(group, IoServer.offsetDeviceName, NAME_LENGTH, io);
        const netId = await client.readRaw(group, IoServer.offsetDeviceNetId, 6, io);
        out.push({
          deviceId,
          name: decodeCp1252(name, 0, name.length),
          amsNetId: resolveNetId(netId, this.systemNetId),
        });
      }
      return out.sort((a, b) => a.deviceId - b.deviceId);
    });
  }

  read(info: EtherCatMasterInfo): Promise<EtherCatMasterReading> {
    return this.use(`Reading EtherCAT master ${info.deviceId}`, (client) =>
      onMaster(info, async () => {
        const at: Target = { amsNetId: info.amsNetId, adsPort: MASTER_ADS_PORT };
        const u16 = async (group: number, offset: number) =>
          (await client.readRaw(group, offset, 2, at)).readUInt16LE(0);
        const currentState = stateOf(await u16(MasterGroup.state, MasterStateOffset.current));
        const requestedState = stateOf(await u16(MasterGroup.state, MasterStateOffset.requested));
        const count = Math.min(await u16(MasterGroup.slaveCount, 0), MAX_SLAVES);
        const slaves = count === 0 ? [] : await readSlaves(client, at, count);
        return { ...info, currentState, requestedState, slaves };
      }),
    );
  }

  resetErrorCounters(info: EtherCatMasterInfo, address: number): Promise<void> {
    return this.use(`Resetting the error counters of slave ${address}`, (client) =>
      onMaster(info, async () => {
        const at: Target = { amsNetId: info.amsNetId, adsPort: MASTER_ADS_PORT };
        const count = Math.min(
          (await client.readRaw(MasterGroup.slaveCount, 0, 2, at)).readUInt16LE(0),
          MAX_SLAVES,
        );
        const addresses =
          count === 0 ? Buffer.alloc(0) : await client.readRaw(MasterGroup.slaveAddresses, 0, 2 * count, at);
        const known = Array.from({ length: addresses.length >> 1 }, (_, i) => addresses.readUInt16LE(2 * i));
        if (!known.includes(address)) {
          throw new AppError(
            'SLAVE_NOT_FOUND',
            `Master ${info.deviceId} has no slave with address ${address}.`,
          );
        }
        const frame = encodeDatagram(counterResetDatagram(address));
        const answer = decodeDatagram(
          await client.readWriteRaw(MasterGroup.datagram, 0, frame.length, frame, at),
        );
        if (!answer || answer.workingCounter === 0) {
          throw new AppError(
            'ADS_ERROR',
            `Slave ${address} did not answer the counter reset (working counter 0).`,
          );
        }
      }),
    );
  }
}

/** A master the router no longer reaches (its NetId or port unknown) is a master the PLC does not have. */
async function onMaster<T>(info: EtherCatMasterInfo, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const code = adsCodeOf(err);
    if (code === AdsErrorCode.TargetMachineNotFound || code === AdsErrorCode.TargetPortNotFound) {
      throw new AppError('MASTER_NOT_FOUND', `No EtherCAT master answers at ${info.amsNetId}.`);
    }
    throw err;
  }
}

async function readSlaves(client: Client, at: Target, count: number): Promise<EtherCatSlaveReading[]> {
  const states = await client.readRaw(MasterGroup.slaveStates, 0, SLAVE_STATE_SIZE * count, at);
  const config = await client.readRaw(MasterGroup.configuredSlaves, 0, CONFIG_DATA_SIZE * count, at);
  const topology = await client.readRaw(MasterGroup.topology, 0, TOPOLOGY_SIZE * count, at);
  const slaves: EtherCatSlaveReading[] = [];
  for (let i = 0; i < count; i++) {
    if (config.length < (i + 1) * CONFIG_DATA_SIZE || states.length < (i + 1) * SLAVE_STATE_SIZE) break;
    const c = decodeConfigData(config, i * CONFIG_DATA_SIZE);
    const wiring =
      topology.length >= (i + 1) * TOPOLOGY_SIZE ? decodeTopology(topology, i * TOPOLOGY_SIZE) : undefined;
    const crc = await client.readRaw(MasterGroup.slaveCrc, c.address, CRC_COUNTERS_SIZE, at);
    slaves.push({
      address: c.address,
      name: c.name,
      type: c.type,
      vendorId: c.vendorId,
      productCode: c.productCode,
      revision: c.revision,
      serial: c.serial,
      ...decodeSlaveState(states, i * SLAVE_STATE_SIZE),
      crcErrors: decodeCrcCounters(crc),
      ports: wiring?.address === c.address ? wiring.ports : openPorts(),
    });
  }
  return slaves;
}
