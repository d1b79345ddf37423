// The start-up warning for a Real PLC whose NotificationBudget is below Notifications.MaxSubscriptionsPerUser.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.ts';
import { minimalSettings, writeSettings } from './helpers.ts';

const real = (budget: number): Record<string, unknown> => ({
  AmsNetId: '5.1.2.3.1.1',
  NotificationBudget: budget,
});

function warningsOf(settings: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): string[] {
  return loadConfig(writeSettings({ ...minimalSettings, ...settings }), env).warnings.map(
    (w) => `${w.setting}: ${w.message}`,
  );
}

describe('config warning: NotificationBudget below the per-user subscription cap', () => {
  it('names each Real PLC whose budget is below the cap, and none at the cap', () => {
    const warnings = warningsOf({
      Notifications: { MaxSubscriptionsPerUser: 100 },
      PlcTargets: { AtCap: real(100), Below: real(99), Above: real(101), Low: real(5) },
    });
    assert.deepEqual(warnings, [
      'PlcTargets.Below.NotificationBudget: PlcTargets.Below.NotificationBudget (99) is below ' +
        'Notifications.MaxSubscriptionsPerUser (100): one user can use up the notifications of this PLC and ' +
        'push the other users to polling.',
      'PlcTargets.Low.NotificationBudget: PlcTargets.Low.NotificationBudget (5) is below ' +
        'Notifications.MaxSubscriptionsPerUser (100): one user can use up the notifications of this PLC and ' +
        'push the other users to polling.',
    ]);
  });

  it('compares against the default cap (250) and the default budget (500)', () => {
    assert.deepEqual(warningsOf({ PlcTargets: { Line1: { AmsNetId: '5.1.2.3.1.1' } } }), []);
    assert.equal(warningsOf({ PlcTargets: { Line1: real(249) } }).length, 1);
    assert.deepEqual(warningsOf({ PlcTargets: { Line1: real(250) } }), []);
  });

  it('takes the cap from an environment override', () => {
    const env = { Notifications__MaxSubscriptionsPerUser: '600' };
    assert.match(
      warningsOf({ PlcTargets: { Line1: { AmsNetId: '5.1.2.3.1.1' } } }, env)[0] ?? '',
      /^PlcTargets\.Line1\.NotificationBudget: .*\(500\) is below .*\(600\)/,
    );
  });

  it('leaves Simulated PLCs alone: their notifications cost no PLC resources', () => {
    assert.deepEqual(warningsOf({ PlcTargets: { Sim: { Mode: 'Simulated', NotificationBudget: 1 } } }), []);
  });
});
