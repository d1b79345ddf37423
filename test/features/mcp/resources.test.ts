// Resources, subscriptions and the diagnose_plc prompt over the SDK client: listings filtered by plc_access,
// reads behind the routes' rules, an alarm raised by sim/step announced as notifications/resources/updated.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Signal } from '../../helpers/signal.ts';
import { admin, line1Only, startMcpRig, viewer, type McpRig } from './fixture.ts';

let rig: McpRig;
before(async () => {
  rig = await startMcpRig();
});
after(() => rig.close());

const textOf = (result: { contents: ReadonlyArray<object> }): unknown => {
  const first = result.contents[0];
  assert.ok(first && 'text' in first && typeof first.text === 'string', 'a text resource');
  return JSON.parse(first.text);
};

test('resources are listed per permitted PLC; a restricted token sees only its PLC', async () => {
  const all = (await (await rig.connect(admin)).listResources()).resources.map((r) => r.uri).sort();
  assert.deepEqual(all, [
    'plc-gateway://plcs',
    'plc-gateway://plcs/line1/alarms',
    'plc-gateway://plcs/line1/status',
    'plc-gateway://plcs/line1/symbols',
    'plc-gateway://plcs/line2/status',
    'plc-gateway://plcs/line2/symbols',
  ]);
  const restricted = (await (await rig.connect(line1Only)).listResources()).resources.map((r) => r.uri);
  assert.ok(restricted.every((uri) => !uri.includes('line2')));
  const client = await rig.connect(line1Only);
  assert.deepEqual(textOf(await client.readResource({ uri: 'plc-gateway://plcs' })), {
    plcs: [
      { plcId: 'line1', displayName: 'Alarm cell', isConnected: true, state: 'Connected', mode: 'Simulated' },
    ],
  });
  await assert.rejects(client.readResource({ uri: 'plc-gateway://plcs/line2/status' }), /PLC_ACCESS_DENIED/);
  await assert.rejects(client.readResource({ uri: 'plc-gateway://plcs/nope/status' }), /PLC_NOT_FOUND/);
  const status = textOf(await client.readResource({ uri: 'plc-gateway://plcs/line1/status' })) as {
    adsState: string;
  };
  assert.equal(status.adsState, 'Run');
  const symbols = textOf(await client.readResource({ uri: 'plc-gateway://plcs/line1/symbols' })) as {
    symbols: Array<{ instancePath: string; childCount?: number }>;
  };
  assert.ok(symbols.symbols.some((s) => s.instancePath === 'GVL_HMI.stMachine' && s.childCount === 6));
});

test('a subscription to alarms sends resources/updated when sim/step raises an alarm', async () => {
  const client = await rig.connect(viewer);
  const updates: string[] = [];
  const signal = new Signal();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
    signal.notify();
  });
  const uri = 'plc-gateway://plcs/line1/alarms';
  const before = textOf(await client.readResource({ uri })) as { count: number };
  assert.equal(before.count, 0);
  await client.subscribeResource({ uri });
  const stepped = await rig.http('POST', '/api/plcs/line1/sim/step?cycles=1');
  assert.equal(stepped.status, 200);
  await signal.until(
    () => updates.includes(uri),
    10_000,
    () => 'resources/updated for the alarms',
  );
  const now = textOf(await client.readResource({ uri })) as {
    items: Array<{ code: string; status: string }>;
  };
  assert.deepEqual(
    now.items.map((a) => [a.code, a.status]),
    [['FILLER_OVERTEMP', 'active']],
  );

  await client.unsubscribeResource({ uri });
  const count = updates.length;
  assert.equal((await rig.http('POST', '/api/plcs/line1/sim/step?cycles=1')).status, 200);
  // A tool call after the step: its answer comes after any notification the step would have sent.
  await client.listTools();
  assert.equal(updates.length, count);
});

test('a status subscription hears the connection change; plc_access holds for subscribing', async () => {
  const client = await rig.connect(viewer);
  const updates: string[] = [];
  const signal = new Signal();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
    signal.notify();
  });
  const uri = 'plc-gateway://plcs/line2/status';
  await client.subscribeResource({ uri });
  rig.line2.disconnect();
  try {
    await signal.until(
      () => updates.includes(uri),
      10_000,
      () => 'resources/updated for the status',
    );
    const status = textOf(await client.readResource({ uri })) as { isConnected: boolean };
    assert.equal(status.isConnected, false);
  } finally {
    rig.line2.reconnect();
  }
  const restricted = await rig.connect(line1Only);
  await assert.rejects(restricted.subscribeResource({ uri }), /PLC_ACCESS_DENIED/);
  await assert.rejects(restricted.subscribeResource({ uri: 'plc-gateway://plcs' }), /can be subscribed/);
});

test('diagnose_plc gathers status, alarms, journal and device state; a foreign PLC is refused', async () => {
  const client = await rig.connect(viewer);
  const prompts = (await client.listPrompts()).prompts;
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['diagnose_plc'],
  );
  const result = await client.getPrompt({ name: 'diagnose_plc', arguments: { plcId: 'line1' } });
  const message = result.messages[0]!;
  assert.equal(message.role, 'user');
  const text = (message.content as { text: string }).text;
  const context = JSON.parse(text.slice(text.indexOf('{'))) as {
    status: { plcId: string };
    alarms: { items: Array<{ code: string }> };
    recentAlarmHistory: Array<{ kind: string }>;
    deviceInfo: { adsState: string };
    deviceState: { state: string };
  };
  assert.equal(context.status.plcId, 'line1');
  assert.ok(context.alarms.items.some((a) => a.code === 'FILLER_OVERTEMP'));
  assert.ok(context.recentAlarmHistory.some((e) => e.kind === 'raised'));
  assert.equal(context.deviceState.state, 'Run');
  const line2 = JSON.parse(
    (
      (await client.getPrompt({ name: 'diagnose_plc', arguments: { plcId: 'line2' } })).messages[0]!
        .content as { text: string }
    ).text.replace(/^[^{]*/, ''),
  ) as { alarms: { unavailable: { code: string } } };
  assert.equal(line2.alarms.unavailable.code, 'PLC_NOT_FOUND');
  await assert.rejects(
    (await rig.connect(line1Only)).getPrompt({ name: 'diagnose_plc', arguments: { plcId: 'line2' } }),
    /PLC_ACCESS_DENIED/,
  );
});

test('a resource URI with a malformed %-escape, or no URI at all, is invalid params naming it', async () => {
  const client = await rig.connect(viewer);
  const invalid = (uri: string) => (err: unknown) => {
    assert.ok(err instanceof McpError, `an McpError, not ${String(err)}`);
    assert.equal(err.code, ErrorCode.InvalidParams, err.message);
    assert.ok(err.message.includes(uri), `the message names ${uri}: ${err.message}`);
    return true;
  };
  for (const uri of ['plc-gateway://plcs/%E0%A4%A/status', 'plc-gateway://plcs/%zz/alarms']) {
    await assert.rejects(client.readResource({ uri }), invalid(uri));
    await assert.rejects(client.subscribeResource({ uri }), invalid(uri));
  }
  await assert.rejects(client.readResource({ uri: 'no uri' }), invalid('no uri'));
  // A well-formed escape names the PLC as its decoded id, as in an HTTP path.
  const status = textOf(await client.readResource({ uri: 'plc-gateway://plcs/line%31/status' })) as {
    plcId: string;
  };
  assert.equal(status.plcId, 'line1');
});
