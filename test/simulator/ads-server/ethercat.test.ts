// Raw ADS requests to the simulated I/O server (port 300) and EtherCAT master (its own NetId, port 0xFFFF),
// answered byte for byte: one fixture per index group served, and the errors of what is not served.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import { createAdsServer, type AdsServer } from '../../../src/simulator/ads-server/server.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { EtherCatSystem } from '../../../src/simulator/ethercat/system.ts';
import { buildProgram } from './fixture.ts';
import { call, rawClient, type RawClient } from './raw-client.ts';

const hex = (b: Buffer) => b.toString('hex');
const master = { netId: '127.0.0.1.3.1', port: 0xffff };
const io = { netId: '127.0.0.1.1.1', port: 300 };

function system(): EtherCatSystem {
  return new EtherCatSystem({
    masters: [
      {
        name: 'EtherCAT Master',
        deviceId: 2,
        slaves: [
          {
            address: 1001,
            name: 'Term 1 (EK1100)',
            type: 'EK1100',
            vendorId: 2,
            productCode: 0x044c2c52,
            revision: 0x00110000,
            serial: 0,
            ports: { B: 1002 },
          },
          {
            address: 1002,
            name: 'Term 2 (EL1008)',
            type: 'EL1008',
            vendorId: 2,
            productCode: 0x03f03052,
            revision: 0x00110000,
            serial: 5,
            ports: { A: 1001 },
          },
        ],
      },
    ],
  });
}

describe('EtherCAT over raw ADS', () => {
  let server: AdsServer;
  let client: RawClient;
  let bus: EtherCatSystem;
  const read = (indexGroup: number, indexOffset: number, length: number, to = master) =>
    call(client, { command: AdsCommand.Read, indexGroup, indexOffset, length }, to);
  const write = (indexGroup: number, indexOffset: number, data: Buffer) =>
    call(client, { command: AdsCommand.Write, indexGroup, indexOffset, data }, master);
  const datagram = (frame: string) =>
    call(
      client,
      {
        command: AdsCommand.ReadWrite,
        indexGroup: 0x2c,
        indexOffset: 0,
        readLength: 64,
        data: Buffer.from(frame, 'hex'),
      },
      master,
    );

  before(async () => {
    bus = system();
    const plc = new SimulatedPlc(buildProgram(), { ethercat: bus });
    server = createAdsServer({ plc, host: '127.0.0.1', port: 0 });
    const address = await server.listen();
    client = await rawClient(address.port);
  });
  after(async () => {
    client.socket.destroy();
    await server.close();
  });

  it('lists the masters on the I/O server: count, ids, then name, NetId and type per device', async () => {
    assert.equal(hex((await read(0x5000, 2, 4, io)).data), '01000000');
    assert.equal(hex((await read(0x5000, 1, 4, io)).data), '01000200');
    assert.equal((await read(0x5002, 1, 255, io)).data.toString('latin1'), 'EtherCAT Master\0');
    assert.equal(hex((await read(0x5002, 5, 6, io)).data), '7f0000010301');
    assert.equal(hex((await read(0x5002, 7, 2, io)).data), '6f00');
    assert.equal((await read(0x5009, 1, 16, io)).result, 1794);
    assert.equal((await read(0x5000, 9, 4, io)).result, 1795);
  });

  it('answers the master port: states, count, addresses, states and links, identity, CRC, config, wiring', async () => {
    assert.equal(hex((await read(0x03, 0x100, 2)).data), '0800');
    assert.equal(hex((await read(0x03, 0x0, 2)).data), '0800');
    assert.equal(hex((await read(0x06, 0, 2)).data), '0200');
    assert.equal(hex((await read(0x07, 0, 2 * 1024)).data), 'e903ea03');
    bus.apply({ kind: 'slave-state', slave: 1002, state: 'SAFEOP', error: true });
    bus.apply({ kind: 'link', slave: 1001, link: 'missing', port: 'B' });
    bus.apply({ kind: 'crc', slave: 1002, port: 'A', count: 300 });
    bus.apply({ kind: 'crc', slave: 1002, port: 'B', count: 7 });
    // ST_EcSlaveState per slave: 1001 OP with "missing link at port B" (0x24), 1002 SAFEOP + error (0x14).
    assert.equal(hex((await read(0x09, 0, 4)).data), '08241400');
    assert.equal(hex((await read(0x09, 1002, 2)).data), '1400');
    assert.equal(hex((await read(0x11, 1002, 16)).data), '02000000' + '5230f003' + '00001100' + '05000000');
    assert.equal(hex((await read(0x12, 0, 8)).data), '00000000' + '33010000');
    assert.equal(hex((await read(0x12, 1002, 16)).data), '2c010000' + '07000000' + '00000000' + '00000000');
    const config = (await read(0x0d, 0, 2 * 77)).data;
    assert.equal(config.length, 154);
    assert.equal(hex(config.subarray(77, 81)), '0800ea03');
    assert.equal(config.subarray(81, 87).toString('latin1'), 'EL1008');
    assert.equal(config.subarray(97, 112).toString('latin1'), 'Term 2 (EL1008)');
    assert.equal(hex(config.subarray(133, 149)), '020000005230f0030000110005000000');
    const wiring = (await read(0x0e, 0, 128)).data;
    // 1001: own address, auto-increment 0, port A the master (0xffff), B 1002; 1002: A 1001.
    assert.equal(hex(wiring.subarray(0, 12)), 'e9030000' + 'ffffea0300000000');
    assert.equal(hex(wiring.subarray(64, 76)), 'ea03ffff' + 'e903000000000000');
    assert.equal((await read(0x12, 4711, 16)).result, 1795);
    assert.equal((await read(0x7777, 0, 4)).result, 1794);
    assert.equal((await read(0x07, 0, 1)).result, 1797);
  });

  it('takes the state requests of Tc2_EtherCAT: the master by offset, a slave by a u16', async () => {
    assert.equal((await write(0x03, 0x02, Buffer.alloc(0))).result, 0);
    assert.equal(hex((await read(0x03, 0x100, 2)).data), '0200');
    assert.equal((await write(0x03, 0x05, Buffer.alloc(0))).result, 1798);
    assert.equal((await write(0x09, 1002, Buffer.from('0800', 'hex'))).result, 0);
    assert.equal(hex((await read(0x09, 1002, 2)).data), '0800');
    assert.equal((await write(0x03, 0x08, Buffer.alloc(0))).result, 0);
  });

  it('sends datagrams through the master: APRD counts the slaves, FPRD reads registers, FPWR clears counters', async () => {
    // APRD adp 0, register 0, 4 bytes (adstool's slave count): ADP comes back as 2, working counter 1.
    const count = await datagram('01ff' + '0000' + '0000' + '0400' + '0000' + '00000000' + '0000');
    assert.equal(hex(count.data), '01ff' + '0200' + '0000' + '0400' + '0000' + '11000000' + '0100');
    // FPRD 1002, AL status 0x0130: OP after the request above.
    const al = await datagram('04ff' + 'ea03' + '3001' + '0200' + '0000' + '0000' + '0000');
    assert.equal(hex(al.data), '04ff' + 'ea03' + '3001' + '0200' + '0000' + '0800' + '0100');
    // FPRD 1002, RX error counters 0x0300: port A 300 saturates at 0xff, port B 7.
    const rx = await datagram('04ff' + 'ea03' + '0003' + '0400' + '0000' + '00000000' + '0000');
    assert.equal(hex(rx.data.subarray(10, 14)), 'ff000700');
    // FPWR 1002 to 0x0300: every counter cleared, as the ESC does.
    const clear = await datagram('0500' + 'ea03' + '0003' + '0100' + '0000' + '00' + '0000');
    assert.equal(hex(clear.data.subarray(-2)), '0100');
    assert.equal(hex((await read(0x12, 1002, 16)).data), '00'.repeat(16));
    // A slave without communication does not answer: working counter 0.
    bus.apply({ kind: 'link', slave: 1002, link: 'lost' });
    const silent = await datagram('0500' + 'ea03' + '0003' + '0100' + '0000' + '00' + '0000');
    assert.equal(hex(silent.data.subarray(-2)), '0000');
    assert.equal((await datagram('09ff0000000000000000')).result, 1798);
    assert.equal((await datagram('04ff')).result, 1797);
  });

  it('routes by NetId: other ports of the master and unknown NetIds are refused in the AMS header', async () => {
    assert.equal((await read(0x06, 0, 2, { netId: master.netId, port: 1002 })).amsError, 6);
    assert.equal((await read(0x06, 0, 2, { netId: '127.0.0.1.9.1', port: 0xffff })).amsError, 7);
  });
});
