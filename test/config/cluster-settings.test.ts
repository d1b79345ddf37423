// Cluster settings: the Redis URL, defaults, env overrides for secrets, and Simulated targets refused in cluster mode.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { minimalSettings, problemsOf, writeSettings } from './helpers.ts';

const real = { Mode: 'Real', AmsNetId: '10.0.0.5.1.1' };

describe('Cluster settings', () => {
  it('absent: one process; defaults HeartbeatSeconds 5, LeaseSeconds 5 and CommandTimeoutMs 500', () => {
    const { Cluster } = loadConfig(writeSettings(minimalSettings), {}).settings;
    assert.deepEqual(Cluster, { HeartbeatSeconds: 5, LeaseSeconds: 5, CommandTimeoutMs: 500 });
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
      CommandTimeoutMs: 500,
    });
  });

  it('takes an ACL user, TLS files (relative to the settings file) and a command timeout', () => {
    const file = writeSettings({
      ...minimalSettings,
      PlcTargets: { line1: real },
      Cluster: {
        Redis: 'rediss://cache.plant:6380',
        Username: 'gateway',
        TlsCaFile: 'certs/ca.pem',
        TlsCertFile: '/etc/gw/client.pem',
        TlsKeyFile: '/etc/gw/client.key',
        CommandTimeoutMs: 250,
      },
    });
    const { Cluster } = loadConfig(file, { Cluster__Password: 's3cret' }).settings;
    assert.equal(Cluster.Username, 'gateway');
    assert.equal(Cluster.Password, 's3cret');
    assert.equal(Cluster.TlsCaFile, join(dirname(file), 'certs/ca.pem'));
    assert.equal(Cluster.TlsCertFile, '/etc/gw/client.pem');
    assert.equal(Cluster.CommandTimeoutMs, 250);
  });

  it('refuses TLS files without rediss://, a certificate without its key, and a timeout below 1 ms', () => {
    const problems = problemsOf(() =>
      loadConfig(
        writeSettings({
          ...minimalSettings,
          PlcTargets: { line1: real },
          Cluster: {
            Redis: 'redis://cache:6379',
            TlsCaFile: '/ca.pem',
            TlsCertFile: '/c.pem',
            CommandTimeoutMs: 0,
          },
        }),
        {},
      ),
    );
    for (const start of [
      'Cluster.TlsCaFile, Cluster.TlsCertFile: need a rediss://',
      'Cluster.TlsCertFile: and Cluster.TlsKeyFile go together',
      'Cluster.CommandTimeoutMs',
    ])
      assert.ok(
        problems.some((p) => p.startsWith(start)),
        `${start} in ${problems.join('\n')}`,
      );
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
