// Cluster settings: the Redis URL, defaults, env overrides for secrets, and Simulated targets refused in cluster mode.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { minimalSettings, problemsOf, writeSettings } from './helpers.ts';

const real = { Mode: 'Real', AmsNetId: '10.0.0.5.1.1' };

describe('Cluster settings', () => {
  it('absent: one process; defaults HeartbeatSeconds 5 and LeaseSeconds 5', () => {
    const { Cluster } = loadConfig(writeSettings(minimalSettings), {}).settings;
    assert.deepEqual(Cluster, { HeartbeatSeconds: 5, LeaseSeconds: 5 });
  });

  it('takes redis:// and rediss:// URLs, a password apart (from the environment), and a ReplicaId', () => {
    const file = writeSettings({
      ...minimalSettings,
      PlcTargets: { line1: real },
      Cluster: { Redis: 'rediss://cache.plant:6380/2', ReplicaId: 'gw-a', LeaseSeconds: 3 },
    });
    const { Cluster } = loadConfig(file, { Cluster__Password: 's3cret' }).settings;
    assert.deepEqual(Cluster, {
      Redis: 'rediss://cache.plant:6380/2',
      ReplicaId: 'gw-a',
      Password: 's3cret',
      HeartbeatSeconds: 5,
      LeaseSeconds: 3,
    });
  });

  it('refuses other URL schemes, a ReplicaId with spaces and periods below 1 s, each by its path', () => {
    const problems = problemsOf(() =>
      loadConfig(
        writeSettings({
          ...minimalSettings,
          Cluster: { Redis: 'http://cache:6379', ReplicaId: 'gw a', HeartbeatSeconds: 0, LeaseSeconds: 0 },
        }),
        {},
      ),
    );
    for (const path of [
      'Cluster.Redis',
      'Cluster.ReplicaId',
      'Cluster.HeartbeatSeconds',
      'Cluster.LeaseSeconds',
    ]) {
      assert.ok(
        problems.some((p) => p.startsWith(path)),
        `${path} in ${problems.join('\n')}`,
      );
    }
  });

  it('refuses Simulated targets in cluster mode, saying to run them with sim-ads', () => {
    const problems = problemsOf(() =>
      loadConfig(
        writeSettings({
          ...minimalSettings,
          PlcTargets: { line1: real, sim1: { Mode: 'Simulated' }, sim2: { Mode: 'Simulated' } },
          Cluster: { Redis: 'redis://127.0.0.1:6379' },
        }),
        {},
      ),
    );
    assert.equal(problems.length, 2);
    for (const [i, id] of ['sim1', 'sim2'].entries()) {
      assert.match(
        problems[i] ?? '',
        new RegExp(`^PlcTargets\\.${id}\\.Mode: Simulated targets are refused in cluster mode`),
      );
      assert.match(problems[i] ?? '', /plc-gateway sim-ads/);
      assert.match(problems[i] ?? '', /point a Real target at it/);
    }
    // Without Cluster.Redis the same targets are fine.
    const file = writeSettings({ ...minimalSettings, PlcTargets: { sim1: { Mode: 'Simulated' } } });
    assert.equal(loadConfig(file, {}).settings.PlcTargets.sim1?.Mode, 'Simulated');
  });
});
