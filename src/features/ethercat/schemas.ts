// Wire shapes of the EtherCAT routes (TypeBox): masters, slaves, the wiring, and the path parameters.
import { Type } from '@sinclair/typebox';
import {
  etherCatStates,
  linkStates,
  type EtherCatState,
  type LinkState,
} from '../../targets/ethercat-port.ts';

const State = Type.Unsafe<EtherCatState>({
  type: 'string',
  enum: [...etherCatStates],
  description: 'EtherCAT state',
});

export const MasterSchema = Type.Object({
  deviceId: Type.Integer({ description: 'I/O device id of the master' }),
  name: Type.String(),
  amsNetId: Type.String({ description: 'The master’s own AMS NetId (its ADS port is 0xFFFF)' }),
  currentState: State,
  requestedState: State,
  slaveCount: Type.Integer(),
});

const Counters = Type.Object(
  { A: Type.Integer(), B: Type.Integer(), C: Type.Integer(), D: Type.Integer() },
  { description: 'CRC error counter per port' },
);

const slaveFields = {
  address: Type.Integer({ description: 'Fixed (configured station) address' }),
  name: Type.String(),
  type: Type.String(),
  vendorId: Type.Integer(),
  productCode: Type.Integer(),
  revision: Type.Integer(),
  serial: Type.Integer(),
  state: State,
  error: Type.Boolean({ description: 'The slave reports a state machine error' }),
  link: Type.Unsafe<LinkState>({
    type: 'string',
    enum: [...linkStates],
    description: 'ok; lost: no communication; missing: an expected link is missing',
  }),
  crcErrors: Counters,
};

export const SlaveSchema = Type.Object(slaveFields);

const Neighbour = Type.Union([Type.Integer(), Type.Literal('master'), Type.Null()], {
  description: 'The neighbour’s address, master, or null for an open port',
});

const Ports = Type.Object({ A: Neighbour, B: Neighbour, C: Neighbour, D: Neighbour });

const WiredSlaveSchema = Type.Object({ ...slaveFields, ports: Ports });

export const TopologySchema = Type.Object({
  deviceId: Type.Integer(),
  name: Type.String(),
  currentState: State,
  slaves: Type.Array(WiredSlaveSchema, { description: 'In bus order' }),
});

export const LocatedSlaveSchema = Type.Object({
  masterId: Type.Integer({ description: 'Device id of the master the slave is on' }),
  ...slaveFields,
  ports: Ports,
});

// Path numbers are plain decimals (schema coercion would also take 0x10 or 1e3).
const Decimal = (description: string) => Type.String({ pattern: '^[0-9]{1,5}$', description });

export const MasterParams = Type.Object({ plcId: Type.String(), id: Decimal('Device id of the master') });

export const SlaveParams = Type.Object({
  plcId: Type.String(),
  address: Decimal('Fixed address of the slave'),
});

export const MasterQuery = Type.Object({
  master: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 65535, description: 'Device id of the master to look on' }),
  ),
});
