// The tools beyond the spec's eight, each through its happy path and its refusal: alarms (fleet filter,
// acknowledge, history), method calls (Rpc allow-list), enum members and the simulation (LifecycleAccess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dataOf, errorOf, line1Only, operator, startMcpRig, viewer, type McpRig } from './fixture.ts';

type AlarmList = {
  count: number;
  items: Array<{ code: string; scope: string; 'x-ads': { isAcknowledged: boolean } }>;
};

let rig: McpRig;
before(async () => {
  rig = await startMcpRig();
  // Scan 1 raises FILLER_OVERTEMP, scan 2 CAPPER_JAM, on both PLCs; only line1 is alarm-monitored.
  for (const plcId of ['line1', 'line2']) {
    const res = await rig.http('POST', `/api/plcs/${plcId}/sim/step?cycles=2`);
    assert.equal(res.status, 200);
  }
});
after(() => rig.close());

describe('alarms', () => {
  test('list_alarms of one PLC, and of the fleet filtered by plc_access', async () => {
    const one = dataOf<AlarmList>(
      await (await rig.connect(viewer)).callTool({ name: 'list_alarms', arguments: { plcId: 'line1' } }),
    );
    assert.deepEqual(one.items.map((a) => a.code).sort(), ['CAPPER_JAM', 'FILLER_OVERTEMP']);
    const fleet = dataOf<AlarmList>(
      await (await rig.connect(line1Only)).callTool({ name: 'list_alarms', arguments: {} }),
    );
    assert.ok(fleet.items.every((a) => a.scope === 'line1'));
    // A token that grants no PLC is refused, as GET /api/alarms refuses it, rather than answered empty.
    const none = errorOf(
      await (
        await rig.connect({ ...viewer, sub: 'nobody', plc_access: [] })
      ).callTool({ name: 'list_alarms', arguments: {} }),
    );
    assert.deepEqual([none.code, none.message], ['PLC_ACCESS_DENIED', 'this token grants no PLC']);
    const unmonitored = errorOf(
      await (await rig.connect(viewer)).callTool({ name: 'list_alarms', arguments: { plcId: 'line2' } }),
    );
    assert.equal(unmonitored.code, 'PLC_NOT_FOUND');
  });

  test('acknowledge_alarm: a viewer is refused and nothing changes; an operator acknowledges, audited and journaled', async () => {
    const refused = errorOf(
      await (
        await rig.connect(viewer)
      ).callTool({ name: 'acknowledge_alarm', arguments: { plcId: 'line1', code: 'CAPPER_JAM' } }),
    );
    assert.equal(refused.code, 'FORBIDDEN');
    const list = async () =>
      dataOf<AlarmList>(
        await (await rig.connect(viewer)).callTool({ name: 'list_alarms', arguments: { plcId: 'line1' } }),
      );
    assert.equal((await list()).items.find((a) => a.code === 'CAPPER_JAM')?.['x-ads'].isAcknowledged, false);

    const otto = await rig.connect(operator);
    const done = dataOf<{ acknowledged: boolean }>(
      await otto.callTool({ name: 'acknowledge_alarm', arguments: { plcId: 'line1', code: 'CAPPER_JAM' } }),
    );
    assert.deepEqual(done, { acknowledged: true });
    assert.equal((await list()).items.find((a) => a.code === 'CAPPER_JAM')?.['x-ads'].isAcknowledged, true);
    const again = errorOf(
      await otto.callTool({ name: 'acknowledge_alarm', arguments: { plcId: 'line1', code: 'CAPPER_JAM' } }),
    );
    assert.equal(again.code, 'ALARM_NOT_FOUND');

    const history = dataOf<{
      items: Array<{ kind: string; alarm: { code: string }; user?: string }>;
      nextAfter: number;
    }>(await otto.callTool({ name: 'alarm_history', arguments: { plcId: 'line1' } }));
    assert.ok(
      history.items.some(
        (e) => e.kind === 'acknowledged' && e.alarm.code === 'CAPPER_JAM' && e.user === 'otto',
      ),
    );
    const rest = dataOf<{ items: unknown[] }>(
      await otto.callTool({ name: 'alarm_history', arguments: { plcId: 'line1', after: history.nextAfter } }),
    );
    assert.equal(rest.items.length, 0);
    const page = dataOf<{ items: unknown[] }>(
      await otto.callTool({ name: 'alarm_history', arguments: { plcId: 'line1', limit: 1 } }),
    );
    assert.equal(page.items.length, 1);
    for (const limit of [0, 1001]) {
      assert.equal(
        errorOf(await otto.callTool({ name: 'alarm_history', arguments: { plcId: 'line1', limit } })).code,
        'VALIDATION_ERROR',
      );
    }

    const audit = (await (await rig.http('GET', '/api/admin/audit?action=alarm.acknowledge')).json()) as {
      data: { items: Array<{ sub: string; plcId: string; target: string; result: string }> };
    };
    assert.ok(
      audit.data.items.some((r) => r.sub === 'vera' && r.result === 'error' && r.target === 'CAPPER_JAM'),
    );
    assert.ok(audit.data.items.some((r) => r.sub === 'otto' && r.result === 'ok' && r.plcId === 'line1'));
  });
});

describe('shelve_alarm', () => {
  test('a viewer and a token without the PLC are refused; an operator shelves within the bounds, audited', async () => {
    const args = { plcId: 'line1', code: 'FILLER_OVERTEMP', minutes: 30, reason: 'probe replaced' };
    assert.equal(
      errorOf(await (await rig.connect(viewer)).callTool({ name: 'shelve_alarm', arguments: args })).code,
      'FORBIDDEN',
    );
    const elsewhere = { ...operator, sub: 'olga', plc_access: ['line2'] };
    assert.equal(
      errorOf(await (await rig.connect(elsewhere)).callTool({ name: 'shelve_alarm', arguments: args })).code,
      'PLC_ACCESS_DENIED',
    );
    const otto = await rig.connect(operator);
    for (const minutes of [0, 481]) {
      assert.equal(
        errorOf(await otto.callTool({ name: 'shelve_alarm', arguments: { ...args, minutes } })).code,
        'VALIDATION_ERROR',
        String(minutes),
      );
    }
    const { reason: _, ...noReason } = args;
    assert.equal(
      errorOf(await otto.callTool({ name: 'shelve_alarm', arguments: noReason })).code,
      'VALIDATION_ERROR',
    );
    assert.equal(
      errorOf(await otto.callTool({ name: 'shelve_alarm', arguments: { ...args, code: 'NO_SUCH' } })).code,
      'ALARM_NOT_FOUND',
    );
    const entry = dataOf<{ action: string; by: string; code: string }>(
      await otto.callTool({ name: 'shelve_alarm', arguments: args }),
    );
    assert.deepEqual([entry.action, entry.by, entry.code], ['shelved', 'otto', 'FILLER_OVERTEMP']);

    const list = async (include?: string[]) =>
      dataOf<{ shelvedCount: number; items: Array<{ code: string; 'x-shelved'?: { by: string } }> }>(
        await otto.callTool({
          name: 'list_alarms',
          arguments: { plcId: 'line1', ...(include ? { include } : {}) },
        }),
      );
    const plain = await list();
    assert.ok(!plain.items.some((a) => a.code === 'FILLER_OVERTEMP'));
    assert.equal(plain.shelvedCount, 1);
    const shown = await list(['shelved']);
    assert.equal(shown.items.find((a) => a.code === 'FILLER_OVERTEMP')?.['x-shelved']?.by, 'otto');

    const audit = (await (await rig.http('GET', '/api/admin/audit?action=alarm.shelve')).json()) as {
      data: { items: Array<{ sub: string; target: string; result: string }> };
    };
    assert.ok(
      audit.data.items.some((r) => r.sub === 'otto' && r.result === 'ok' && r.target === 'FILLER_OVERTEMP'),
    );
    assert.ok(audit.data.items.some((r) => r.sub === 'vera' && r.result === 'error'));
    const unshelve = await rig.http('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/unshelve');
    assert.equal(unshelve.status, 200);
  });
});

describe('methods and types', () => {
  test('call_method obeys the Rpc.Invokable allow-list and WriteAccess', async () => {
    const otto = await rig.connect(operator);
    const result = dataOf<{ returnValue: unknown; outParameters: object }>(
      await otto.callTool({
        name: 'call_method',
        arguments: {
          plcId: 'line1',
          method: 'GVL_HMI.fbAlarms.AcknowledgeAlarm',
          parameters: ['FILLER_OVERTEMP'],
        },
      }),
    );
    assert.equal(result.returnValue, true);
    const denied = errorOf(
      await otto.callTool({
        name: 'call_method',
        arguments: {
          plcId: 'line2',
          method: 'GVL_HMI.fbAlarms.AcknowledgeAlarm',
          parameters: ['FILLER_OVERTEMP'],
        },
      }),
    );
    assert.equal(denied.code, 'RPC_INVOKE_DENIED');
    const viewerCall = errorOf(
      await (
        await rig.connect(viewer)
      ).callTool({
        name: 'call_method',
        arguments: { plcId: 'line1', method: 'GVL_HMI.fbAlarms.AcknowledgeAlarm', parameters: ['X'] },
      }),
    );
    assert.equal(viewerCall.code, 'FORBIDDEN');
  });

  test('get_enum_members answers declaration order; an unknown type is TYPE_NOT_FOUND', async () => {
    const client = await rig.connect(viewer);
    const members = dataOf<{ typeName: string; members: Array<{ name: string; value: number }> }>(
      await client.callTool({
        name: 'get_enum_members',
        arguments: { plcId: 'line1', typeName: 'E_ErrorType' },
      }),
    );
    assert.deepEqual(
      members.members.map((m) => [m.name, m.value]),
      [
        ['NONE', 0],
        ['INFO', 1],
        ['WARNING', 2],
        ['ERROR', 3],
      ],
    );
    const missing = errorOf(
      await client.callTool({ name: 'get_enum_members', arguments: { plcId: 'line1', typeName: 'E_Nope' } }),
    );
    assert.equal(missing.code, 'TYPE_NOT_FOUND');
  });
});

describe('simulation', () => {
  test('sim tools need LifecycleAccess: a viewer and an operator are refused and nothing runs', async () => {
    const before = rig.line2.simulation!.state().cycleCount;
    for (const claims of [viewer, operator]) {
      const client = await rig.connect(claims);
      assert.equal(
        errorOf(await client.callTool({ name: 'sim_state', arguments: { plcId: 'line2' } })).code,
        'FORBIDDEN',
      );
      assert.equal(
        errorOf(await client.callTool({ name: 'sim_step', arguments: { plcId: 'line2', cycles: 1 } })).code,
        'FORBIDDEN',
      );
    }
    assert.equal(rig.line2.simulation!.state().cycleCount, before);
  });

  test('an admin steps, runs, pauses and resets; cycles are bounded at both edges; conflicts are tool errors', async () => {
    const ada = await rig.connect(admin);
    const state = dataOf<{ state: string; cycleCount: number }>(
      await ada.callTool({ name: 'sim_state', arguments: { plcId: 'line2' } }),
    );
    const stepped = dataOf<{ cycleCount: number }>(
      await ada.callTool({ name: 'sim_step', arguments: { plcId: 'line2', cycles: 3 } }),
    );
    assert.equal(stepped.cycleCount, state.cycleCount + 3);
    for (const cycles of [0, 100001]) {
      assert.equal(
        errorOf(await ada.callTool({ name: 'sim_step', arguments: { plcId: 'line2', cycles } })).code,
        'VALIDATION_ERROR',
      );
    }
    assert.equal(
      dataOf<{ state: string }>(await ada.callTool({ name: 'sim_run', arguments: { plcId: 'line2' } })).state,
      'Running',
    );
    const conflict = errorOf(
      await ada.callTool({ name: 'sim_step', arguments: { plcId: 'line2', cycles: 1 } }),
    );
    assert.equal(conflict.code, 'SIMULATION_CONFLICT');
    assert.equal(
      dataOf<{ state: string }>(await ada.callTool({ name: 'sim_pause', arguments: { plcId: 'line2' } }))
        .state,
      'Paused',
    );
    const reset = dataOf<{ state: string; cycleCount: number }>(
      await ada.callTool({ name: 'sim_reset', arguments: { plcId: 'line2' } }),
    );
    assert.deepEqual([reset.state, reset.cycleCount], ['Stopped', 0]);

    const audit = (await (await rig.http('GET', '/api/admin/audit?action=sim.step')).json()) as {
      data: {
        items: Array<{ sub: string; target: string; result: string; newValue?: { cycleCount: number } }>;
      };
    };
    assert.ok(audit.data.items.some((r) => r.sub === 'ada' && r.target === 'cycles=3' && r.result === 'ok'));
    assert.ok(
      audit.data.items.some((r) => r.sub === 'ada' && r.result === 'error' && r.target === 'cycles=1'),
    );
  });
});
