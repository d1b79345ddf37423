// EtherCAT datagrams a master sends on the simulated bus, answered from each slave controller's registers:
// the station address, the AL status and the RX error counters, which a write clears as the ESC does.
import {
  DatagramCommand,
  EC_STATE_ERROR,
  ESC_COUNTER_MAX,
  EscRegister,
  portNames,
  stateCode,
  type Datagram,
} from '../../plc/ethercat/index.ts';
import type { SimMaster, SimSlave } from './system.ts';

/** ESC type byte the simulated slaves report (an ET1100-class controller). */
const ESC_TYPE = 0x11;

function registerByte(slave: SimSlave, register: number): number {
  if (register === EscRegister.type) return ESC_TYPE;
  if (register === EscRegister.stationAddress) return slave.address & 0xff;
  if (register === EscRegister.stationAddress + 1) return slave.address >> 8;
  if (register === EscRegister.alStatus) return stateCode(slave.state) | (slave.error ? EC_STATE_ERROR : 0);
  if (register >= EscRegister.rxErrorCounters && register < EscRegister.rxErrorCounters + 8) {
    const rel = register - EscRegister.rxErrorCounters;
    const port = portNames[rel >> 1] ?? 'A';
    // Even offsets: invalid frame (CRC) counter; odd: RX error counter, never counted here.
    return rel % 2 === 0 ? Math.min(slave.crc[port], ESC_COUNTER_MAX) : 0;
  }
  return 0;
}

function readRegisters(slave: SimSlave, ado: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = registerByte(slave, ado + i);
  return out;
}

function writeRegisters(slave: SimSlave, ado: number, length: number): void {
  const end = ado + length;
  if (ado < EscRegister.rxErrorCountersEnd && end > EscRegister.rxErrorCounters) {
    for (const p of portNames) slave.crc[p] = 0;
  }
}

function addressed(master: SimMaster, d: Datagram): SimSlave[] {
  const present = master.slaves.filter((s) => s.present);
  switch (d.command) {
    case DatagramCommand.APRD:
    case DatagramCommand.APWR:
      // Auto-increment: the slave at position p is addressed by ADP -p.
      return present.filter((s) => ((d.adp + s.position) & 0xffff) === 0);
    case DatagramCommand.FPRD:
    case DatagramCommand.FPWR:
      return present.filter((s) => s.address === d.adp);
    case DatagramCommand.BRD:
    case DatagramCommand.BWR:
      return present;
    default:
      return [];
  }
}

const isWrite = (command: number) =>
  command === DatagramCommand.APWR || command === DatagramCommand.FPWR || command === DatagramCommand.BWR;

/** Whether the simulated bus understands `command`. */
export function isKnownCommand(command: number): boolean {
  return (Object.values(DatagramCommand) as number[]).includes(command);
}

/**
 * The datagram as it returns to the master. Reads carry the addressed slaves' bytes (broadcast: OR-ed);
 * every slave a datagram addresses adds one to the working counter; auto-increment and broadcast datagrams
 * have ADP incremented by every slave on the way, which is how a master counts them.
 */
export function exchange(master: SimMaster, d: Datagram): Datagram {
  const targets = addressed(master, d);
  const length = d.data.length;
  let data = Buffer.from(d.data);
  if (isWrite(d.command)) {
    for (const s of targets) writeRegisters(s, d.ado, length);
  } else if (targets.length > 0) {
    data = Buffer.alloc(length);
    for (const s of targets) {
      const bytes = readRegisters(s, d.ado, length);
      for (let i = 0; i < length; i++) data[i] = (data[i] ?? 0) | (bytes[i] ?? 0);
    }
  }
  const counted = d.command === DatagramCommand.FPRD || d.command === DatagramCommand.FPWR;
  const passed = master.slaves.filter((s) => s.present).length;
  return {
    ...d,
    adp: counted ? d.adp : (d.adp + passed) & 0xffff,
    data,
    workingCounter: (d.workingCounter + targets.length) & 0xffff,
  };
}
