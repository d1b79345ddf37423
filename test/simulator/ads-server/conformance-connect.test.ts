// ads-client (unmodified) against the server: both connection styles, device info and states,
// symbol and data-type uploads compared with the engine's own table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './fixture.ts';

describe('ADS server: connect, states, symbols and types (ads-client)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('connects in router mode: registers a port and gets a NetId', async () => {
    const client = await h.connect();
    assert.equal(client.connection.connected, true);
    assert.equal(client.connection.localAmsNetId, '127.0.0.1.1.1');
    assert.ok((client.connection.localAdsPort ?? 0) >= 32768);
    const stats = h.server.stats();
    assert.ok(stats.clients.some((c) => c.amsAddress === `127.0.0.1.1.1:${client.connection.localAdsPort}`));
    await client.disconnect();
  });

  it('connects with a fixed local address (no port registration)', async () => {
    const client = await h.connect({ localAmsNetId: '10.0.0.5.1.1', localAdsPort: 30123 });
    assert.equal(client.connection.localAmsNetId, '10.0.0.5.1.1');
    assert.equal(client.connection.localAdsPort, 30123);
    assert.equal((await client.readValue('MAIN.nInt')).value, -12345);
    assert.equal(
      h.server.stats().clients.every((c) => c.amsAddress === undefined || c.amsAddress.includes(':')),
      true,
    );
    await client.disconnect();
  });

  it('answers device info and states on both ports', async () => {
    const client = await h.connect();
    const info = await client.readDeviceInfo();
    assert.deepEqual(info, { majorVersion: 3, minorVersion: 1, versionBuild: 4024, deviceName: 'Plc30 App' });
    const system = await client.readTcSystemExtendedState();
    assert.equal(system.adsState, 5);
    assert.equal(system.version, 3);
    assert.equal(system.build, 4024);
    assert.deepEqual(await client.readTcSystemState(), { adsState: 5, adsStateStr: 'Run', deviceState: 0 });
    assert.deepEqual(await client.readPlcRuntimeState(), { adsState: 5, adsStateStr: 'Run', deviceState: 0 });
    const sysInfo = await client.readDeviceInfo({ adsPort: 10000 });
    assert.equal(sysInfo.deviceName, 'TwinCAT System');
    assert.equal(await client.readPlcSymbolVersion(), h.plc.symbolVersion);
    const upload = await client.readPlcUploadInfo();
    assert.equal(upload.version, 3);
    assert.equal(upload.encodingCodePage, 65001);
    assert.equal(upload.symbolCount, h.plc.program.symbols.length);
  });

  it('uploads every symbol with the engine offsets, sizes, types and comments', async () => {
    const client = await h.connect();
    const symbols = await client.getSymbols();
    const engine = h.plc.program.symbols;
    assert.equal(Object.keys(symbols).length, engine.length);
    for (const s of engine) {
      const got = symbols[s.name.toLowerCase()];
      assert.ok(got, s.name);
      assert.deepEqual(
        [got.name, got.type, got.indexGroup, got.indexOffset, got.size, got.comment],
        [s.name, s.type.name, 0x4040, s.offset, s.type.size, s.comment],
      );
    }
  });

  it('uploads data types that ads-client builds into full types', async () => {
    const client = await h.connect();
    const types = await client.getDataTypes(true);
    assert.deepEqual(Object.keys(types).sort(), [
      'array [0..1,1..3] of int',
      'array [0..9] of int',
      'array [1..3] of st_axis',
      'e_ackresult',
      'e_mode',
      'fb_alarms',
      'st_axis',
      'st_point',
    ]);
    const axis = await client.getDataType('ST_Axis');
    assert.equal(axis.size, h.plc.program.types.resolve('ST_Axis').size);
    assert.deepEqual(
      axis.subItems.map((s) => [s.name, s.type, s.offset, s.size]),
      [
        ['sId', 'STRING(15)', 0, 16],
        ['pos', 'ST_Point', 16, 16],
        ['bEnabled', 'BOOL', 32, 1],
        ['eMode', 'INT', 34, 2],
      ],
    );
    assert.deepEqual(
      axis.subItems[3]?.enumInfos.map((e) => [e.name, e.value]),
      [
        ['IDLE', 0],
        ['RUN', 1],
        ['FAULT', 7],
      ],
    );
    const grid = await client.getDataType('ARRAY [0..1,1..3] OF INT');
    assert.deepEqual(grid.arrayInfos, [
      { startIndex: 0, length: 2 },
      { startIndex: 1, length: 3 },
    ]);
    const fb = await client.getDataType('FB_Alarms');
    assert.deepEqual(
      fb.rpcMethods.map((m) => m.name),
      ['AcknowledgeAlarm', 'Lookup', 'Hidden'],
    );
  });

  it('serves symbol info for sub-paths and answers 1808 for unknown names and types', async () => {
    const client = await h.connect();
    const sub = await client.getSymbol('main.aAxes[2].pos.y');
    const r = h.plc.resolve('MAIN.aAxes[2].pos.y');
    assert.deepEqual(
      [sub.name, sub.type, sub.indexOffset, sub.size],
      ['MAIN.aAxes[2].pos.y', 'LREAL', r.offset, 8],
    );
    await assert.rejects(
      client.getSymbol('MAIN.nope'),
      (err: { adsError?: { errorCode: number } }) => err.adsError?.errorCode === 1808,
    );
    await assert.rejects(
      client.getSymbol('MAIN.aAxes[9]'),
      (err: { adsError?: { errorCode: number } }) => err.adsError?.errorCode === 1808,
    );
    await assert.rejects(
      client.readWriteRaw(0xf011, 0, 0xffff, Buffer.from('ST_Missing\0')),
      (err: { adsError?: { errorCode: number } }) => err.adsError?.errorCode === 1808,
    );
  });
});
