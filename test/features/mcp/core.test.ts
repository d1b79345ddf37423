// MCP core over Streamable HTTP with the SDK's own client: the token checks before any MCP message, the flag,
// the tool list, and the spec's eight tools with their refusals (policy, plc_access, validation, limits).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { admin, dataOf, errorOf, line1Only, operator, startMcpRig, viewer, type McpRig } from './fixture.ts';

const speed = 'GVL_HMI.stMachine.rSpeedSetpoint';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

let rig: McpRig;
before(async () => {
  rig = await startMcpRig();
});
after(() => rig.close());

describe('transport and token', () => {
  test('a bad or missing token is a 401 in the envelope before any MCP message', async () => {
    for (const authorization of [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${await mintToken({}, { expiresIn: -60 })}`,
    ]) {
      const res = await fetch(rig.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify(initialize),
      });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'UNAUTHORIZED');
      assert.equal(res.headers.get('mcp-session-id'), null);
    }
    const client = new Client({ name: 'bad', version: '1' });
    const transport = new StreamableHTTPClientTransport(rig.url, {
      requestInit: { headers: { authorization: 'Bearer forged' } },
    });
    await assert.rejects(client.connect(transport), /UNAUTHORIZED/);
  });

  test('initialize opens a session with an id; a request naming an unknown session is a 404', async () => {
    const res = await fetch(rig.url, {
      method: 'POST',
      headers: {
        ...bearer(await mintToken(admin)),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('mcp-session-id') ?? '', /^[0-9a-f-]{36}$/);
    await res.body?.cancel();
    const unknown = await fetch(rig.url, {
      method: 'POST',
      headers: {
        ...bearer(await mintToken(admin)),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': '00000000-0000-0000-0000-000000000000',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(unknown.status, 404);
  });

  test('another user cannot use a session: it is not found for them', async () => {
    const mine = await rig.connect(admin);
    const sessionId = (mine.transport as StreamableHTTPClientTransport).sessionId;
    assert.ok(sessionId);
    const res = await fetch(rig.url, {
      method: 'POST',
      headers: {
        ...bearer(await mintToken(viewer)),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
  });

  test('the flag off answers 501 FEATURE_DISABLED to a valid token', async () => {
    const off = await startMcpRig({ settings: { Features: { Mcp: false } } });
    try {
      const res = await fetch(off.url, {
        method: 'POST',
        headers: { ...bearer(await mintToken(admin)), 'content-type': 'application/json' },
        body: JSON.stringify(initialize),
      });
      assert.equal(res.status, 501);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'FEATURE_DISABLED');
    } finally {
      await off.close();
    }
  });
});

describe('tool list', () => {
  test('every token sees the same list, each tool with a description and a JSON Schema input', async () => {
    const lists = await Promise.all(
      [admin, viewer, line1Only].map(async (claims) => (await (await rig.connect(claims)).listTools()).tools),
    );
    assert.deepEqual(lists[1], lists[0]);
    assert.deepEqual(lists[2], lists[0]);
    const names = lists[0]!.map((t) => t.name);
    for (const name of [
      'list_plcs',
      'get_plc_status',
      'read_variable',
      'read_variables',
      'write_variable',
      'browse_symbols',
      'get_symbol_info',
      'get_device_info',
    ]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    for (const tool of lists[0]!) {
      assert.ok((tool.description ?? '').length > 20, `${tool.name} says what it does`);
      assert.equal(tool.inputSchema.type, 'object');
    }
    assert.equal(lists[0]!.find((t) => t.name === 'write_variable')?.annotations?.readOnlyHint, false);
    assert.equal(lists[0]!.find((t) => t.name === 'read_variable')?.annotations?.readOnlyHint, true);
  });

  test('tools of a disabled feature are not listed, and calling one by name is refused', async () => {
    const off = await startMcpRig({
      settings: { Features: { Mcp: true, Symbols: false, DeviceInfo: false } },
    });
    try {
      const client = await off.connect(admin);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('browse_symbols') && !names.includes('get_symbol_info'));
      assert.ok(!names.includes('get_device_info'));
      assert.ok(names.includes('read_variable'));
      const refused = await client.callTool({ name: 'browse_symbols', arguments: { plcId: 'line1' } });
      assert.equal(errorOf(refused).code, 'NOT_FOUND');
    } finally {
      await off.close();
    }
  });
});

describe('PLCs', () => {
  test('list_plcs wraps the permitted PLCs in { plcs }: a restricted token never sees another PLC', async () => {
    const all = dataOf<{ plcs: Array<{ plcId: string }> }>(
      await (await rig.connect(admin)).callTool({ name: 'list_plcs', arguments: {} }),
    );
    assert.deepEqual(
      all.plcs.map((p) => p.plcId),
      ['line1', 'line2'],
    );
    const restricted = dataOf<{ plcs: Array<{ plcId: string; isConnected: boolean; mode: string }> }>(
      await (await rig.connect(line1Only)).callTool({ name: 'list_plcs', arguments: {} }),
    );
    assert.deepEqual(restricted.plcs, [
      { plcId: 'line1', displayName: 'Alarm cell', isConnected: true, state: 'Connected', mode: 'Simulated' },
    ]);
  });

  test('get_plc_status answers the status; outside plc_access and unknown PLCs are tool errors', async () => {
    const client = await rig.connect(line1Only);
    const status = dataOf<{ plcId: string; adsState: string }>(
      await client.callTool({ name: 'get_plc_status', arguments: { plcId: 'LINE1' } }),
    );
    assert.equal(status.plcId, 'line1');
    assert.equal(status.adsState, 'Run');
    const denied = errorOf(await client.callTool({ name: 'get_plc_status', arguments: { plcId: 'line2' } }));
    assert.equal(denied.code, 'PLC_ACCESS_DENIED');
    assert.equal(
      errorOf(await client.callTool({ name: 'get_plc_status', arguments: { plcId: 'nope' } })).code,
      'PLC_NOT_FOUND',
    );
  });

  test('get_device_info answers the device; a token without ads:read is FORBIDDEN', async () => {
    const info = dataOf<{ deviceName: string; adsState: string }>(
      await (await rig.connect(viewer)).callTool({ name: 'get_device_info', arguments: { plcId: 'line2' } }),
    );
    assert.equal(info.adsState, 'Run');
    assert.equal(typeof info.deviceName, 'string');
    const noScope = await rig.connect({ ...viewer, sub: 'noscope', scope: '' });
    assert.equal(
      errorOf(await noScope.callTool({ name: 'get_device_info', arguments: { plcId: 'line2' } })).code,
      'FORBIDDEN',
    );
  });
});

describe('variables', () => {
  test('read_variable and read_variables answer the API shapes; a bad path fails alone', async () => {
    const client = await rig.connect(viewer);
    const one = dataOf<{ symbol: string; typeName: string; value: number; timestamp: string }>(
      await client.callTool({
        name: 'read_variable',
        arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine.nState' },
      }),
    );
    assert.equal(one.symbol, 'GVL_HMI.stMachine.nState');
    assert.equal(one.typeName, 'INT');
    assert.equal(one.value, 1);
    const many = dataOf<{ values: Record<string, { value: unknown; error?: { code: string } }> }>(
      await client.callTool({
        name: 'read_variables',
        arguments: { plcId: 'line1', paths: ['GVL_HMI.stMachine.nState', 'GVL_HMI.nope'] },
      }),
    );
    assert.equal(many.values['GVL_HMI.stMachine.nState']?.value, 1);
    assert.equal(many.values['GVL_HMI.nope']?.error?.code, 'SYMBOL_NOT_FOUND');
    const missing = errorOf(
      await client.callTool({ name: 'read_variable', arguments: { plcId: 'line1', path: 'GVL_HMI.nope' } }),
    );
    assert.equal(missing.code, 'SYMBOL_NOT_FOUND');
  });

  test('read_variables takes 100 paths and refuses 101 with BATCH_LIMIT_EXCEEDED', async () => {
    const client = await rig.connect(viewer);
    const paths = (n: number) =>
      Array.from({ length: n }, (_, i) => `GVL_HMI.aAxes[${(i % 16) + 1}].rPosition`);
    const ok = dataOf<{ values: object }>(
      await client.callTool({ name: 'read_variables', arguments: { plcId: 'line1', paths: paths(100) } }),
    );
    assert.equal(Object.keys(ok.values).length, 16);
    const over = errorOf(
      await client.callTool({ name: 'read_variables', arguments: { plcId: 'line1', paths: paths(101) } }),
    );
    assert.equal(over.code, 'BATCH_LIMIT_EXCEEDED');
  });

  test('a viewer’s write is FORBIDDEN and nothing is written; an operator’s is read back and audited', async () => {
    const before = rig.line1.plc.read(speed);
    const refused = errorOf(
      await (
        await rig.connect(viewer)
      ).callTool({
        name: 'write_variable',
        arguments: { plcId: 'line1', path: speed, value: 42 },
      }),
    );
    assert.equal(refused.code, 'FORBIDDEN');
    assert.equal(rig.line1.plc.read(speed), before);

    const written = dataOf<{ value: number; typeName: string }>(
      await (
        await rig.connect(operator)
      ).callTool({
        name: 'write_variable',
        arguments: { plcId: 'line1', path: speed, value: 42.5 },
      }),
    );
    assert.equal(written.value, 42.5);
    assert.equal(written.typeName, 'REAL');
    assert.equal(rig.line1.plc.read(speed), 42.5);

    const audit = (await (await rig.http('GET', '/api/admin/audit?action=variable.write')).json()) as {
      data: {
        items: Array<{
          sub: string;
          target: string;
          result: string;
          oldValue?: unknown;
          newValue?: unknown;
          error?: { code: string };
        }>;
      };
    };
    const records = audit.data.items.filter((r) => r.target === speed);
    assert.ok(records.some((r) => r.sub === 'vera' && r.result === 'error' && r.error?.code === 'FORBIDDEN'));
    assert.ok(
      records.some(
        (r) => r.sub === 'otto' && r.result === 'ok' && r.oldValue === before && r.newValue === 42.5,
      ),
    );
  });

  test('a write is validated like the API: TYPE_MISMATCH and a missing value are tool errors', async () => {
    const client = await rig.connect(operator);
    const before = rig.line1.plc.read('GVL_HMI.stMachine.nState');
    const mismatch = errorOf(
      await client.callTool({
        name: 'write_variable',
        arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine.nState', value: 'fast' },
      }),
    );
    assert.equal(mismatch.code, 'TYPE_MISMATCH');
    const overflow = errorOf(
      await client.callTool({
        name: 'write_variable',
        arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine.nState', value: 40000 },
      }),
    );
    assert.equal(overflow.code, 'TYPE_MISMATCH');
    assert.equal(rig.line1.plc.read('GVL_HMI.stMachine.nState'), before);
    const noValue = errorOf(
      await client.callTool({
        name: 'write_variable',
        arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine.nState' },
      }),
    );
    assert.equal(noValue.code, 'VALIDATION_ERROR');
    const unknownArg = errorOf(
      await client.callTool({ name: 'read_variable', arguments: { plcId: 'line1', path: speed, pth: 'x' } }),
    );
    assert.equal(unknownArg.code, 'VALIDATION_ERROR');
  });

  test('plc_access holds for writes: a line1-only operator cannot write line2', async () => {
    const before = rig.line2.plc.read(speed);
    const denied = errorOf(
      await (
        await rig.connect(line1Only)
      ).callTool({
        name: 'write_variable',
        arguments: { plcId: 'line2', path: speed, value: 7 },
      }),
    );
    assert.equal(denied.code, 'PLC_ACCESS_DENIED');
    assert.equal(rig.line2.plc.read(speed), before);
  });
});

describe('symbols', () => {
  test('browse_symbols is depth-limited and counted; search finds the outermost matches', async () => {
    const client = await rig.connect(viewer);
    type Browsed = { instancePath: string; children?: Browsed[] | null; childCount?: number };
    const top = dataOf<{ symbols: Browsed[]; total: number; truncated: boolean }>(
      await client.callTool({ name: 'browse_symbols', arguments: { plcId: 'line1', depth: 0 } }),
    );
    assert.ok(top.symbols.length > 0);
    assert.equal(top.truncated, false);
    const machineTop = top.symbols.find((s) => s.instancePath === 'GVL_HMI.stMachine');
    assert.equal(machineTop?.children, undefined, 'children cut');
    assert.equal(machineTop?.childCount, 6, 'and counted');

    const deeper = dataOf<{ symbols: Browsed[] }>(
      await client.callTool({ name: 'browse_symbols', arguments: { plcId: 'line1', depth: 1 } }),
    );
    const axis = deeper.symbols
      .find((s) => s.instancePath === 'GVL_HMI.aAxes')
      ?.children?.find((c) => c.instancePath === 'GVL_HMI.aAxes[1]');
    assert.ok(axis && axis.children === undefined && (axis.childCount ?? 0) > 0, 'grandchildren cut');
    const state = deeper.symbols
      .find((s) => s.instancePath === 'GVL_HMI.stMachine')
      ?.children?.find((c) => c.instancePath === 'GVL_HMI.stMachine.nState');
    assert.equal(state?.children, null, 'a leaf stays null');

    const found = dataOf<{ symbols: Browsed[] }>(
      await client.callTool({
        name: 'browse_symbols',
        arguments: { plcId: 'line1', search: 'speedsetpoint', flat: true },
      }),
    );
    assert.deepEqual(
      found.symbols.map((s) => s.instancePath),
      [speed],
    );

    const capped = dataOf<{ symbols: Browsed[]; truncated: boolean }>(
      await client.callTool({ name: 'browse_symbols', arguments: { plcId: 'line1', flat: true, limit: 3 } }),
    );
    assert.equal(capped.symbols.length, 3);
    assert.equal(capped.truncated, true);
    for (const [arg, value] of [
      ['depth', 6],
      ['limit', 1001],
      ['limit', 0],
    ] as const) {
      const bad = errorOf(
        await client.callTool({ name: 'browse_symbols', arguments: { plcId: 'line1', [arg]: value } }),
      );
      assert.equal(bad.code, 'VALIDATION_ERROR', `${arg} ${value}`);
    }
  });

  test('get_symbol_info answers one symbol with its children; an unknown one is SYMBOL_NOT_FOUND', async () => {
    const client = await rig.connect(viewer);
    const info = dataOf<{
      instancePath: string;
      typeName: string;
      children: Array<{ instancePath: string }>;
    }>(
      await client.callTool({
        name: 'get_symbol_info',
        arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine' },
      }),
    );
    assert.equal(info.instancePath, 'GVL_HMI.stMachine');
    assert.ok(info.children.some((c) => c.instancePath === speed));
    const leaf = dataOf<{ typeName: string; children: null }>(
      await client.callTool({ name: 'get_symbol_info', arguments: { plcId: 'line1', path: speed } }),
    );
    assert.equal(leaf.typeName, 'REAL');
    assert.equal(leaf.children, null);
    assert.equal(
      errorOf(
        await client.callTool({
          name: 'get_symbol_info',
          arguments: { plcId: 'line1', path: 'GVL_HMI.nope' },
        }),
      ).code,
      'SYMBOL_NOT_FOUND',
    );
  });
});
