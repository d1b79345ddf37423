// machine.yaml's `ethercat:` section (masters, their slaves in bus order and their wiring) and the `ethercat`
// action of script steps; part of the built-in scenario schema.
import { Type } from '@sinclair/typebox';
import {
  etherCatStates,
  linkStates,
  portNames,
  type EtherCatState,
  type LinkState,
  type PortName,
} from '../../plc/ethercat/index.ts';

const printable = '^[\\x20-\\x7E\\xA0-\\xFF]*$';
const printableMessage = { pattern: 'must contain only printable Latin-1 characters' };
const U32 = (opts: { default?: number } = {}) => Type.Integer({ minimum: 0, maximum: 4294967295, ...opts });

/** Fixed (configured station) addresses; 0 and 0xFFFF are no slave's. */
const Address = Type.Integer({ minimum: 1, maximum: 65534, errorMessage: 'must be an address 1-65534' });
/** TwinCAT numbers I/O devices from 1; the master's NetId is derived from it (…<deviceId + 1>.1). */
const DeviceId = Type.Integer({ minimum: 1, maximum: 254, errorMessage: 'must be a device id 1-254' });

const Port = Type.Unsafe<PortName>({
  type: 'string',
  enum: [...portNames],
  errorMessage: 'must be A, B, C or D',
});
const State = Type.Unsafe<EtherCatState>({
  type: 'string',
  enum: [...etherCatStates],
  errorMessage: 'must be INIT, PREOP, BOOT, SAFEOP or OP',
});
const Link = Type.Unsafe<LinkState>({
  type: 'string',
  enum: [...linkStates],
  errorMessage: 'must be ok, lost or missing',
});

const Neighbour = Type.Union([Address, Type.Literal('master')], {
  errorMessage: 'must be a slave address or master',
});

const Slave = Type.Object(
  {
    address: Address,
    name: Type.String({ minLength: 1, maxLength: 31, pattern: printable, errorMessage: printableMessage }),
    type: Type.String({ minLength: 1, maxLength: 15, pattern: printable, errorMessage: printableMessage }),
    vendorId: U32({ default: 0 }),
    productCode: U32({ default: 0 }),
    revision: U32({ default: 0 }),
    serial: U32({ default: 0 }),
    ports: Type.Object(
      {
        A: Type.Optional(Neighbour),
        B: Type.Optional(Neighbour),
        C: Type.Optional(Neighbour),
        D: Type.Optional(Neighbour),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

const Master = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: printable, errorMessage: printableMessage }),
    deviceId: DeviceId,
    slaves: Type.Array(Slave, { maxItems: 4096, default: [] }),
  },
  { additionalProperties: false },
);

export const EtherCatSection = Type.Object(
  { masters: Type.Array(Master, { minItems: 1, maxItems: 16 }) },
  { additionalProperties: false },
);

/**
 * `{ slave, state, error? }`, `{ slave, link, port? }`, `{ slave, port, crcErrors }` or `{ master, state }`;
 * `master` also picks the master of a slave address that two masters use.
 */
export const EtherCatStep = Type.Object(
  {
    master: Type.Optional(DeviceId),
    slave: Type.Optional(Address),
    state: Type.Optional(State),
    error: Type.Optional(Type.Boolean()),
    link: Type.Optional(Link),
    port: Type.Optional(Port),
    crcErrors: Type.Optional(U32()),
  },
  { additionalProperties: false },
);
