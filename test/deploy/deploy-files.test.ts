// The service files in deploy/: the systemd unit keeps the promises docs/deployment.md makes (dedicated user,
// production, restart on failure, settings and data outside the install, hardening) and passes
// `systemd-analyze verify` without a warning; the Dockerfile runs as non-root with a health check and volumes.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

const run = promisify(execFile);
const deploy = resolve(import.meta.dirname, '../../deploy');

/** `Key=value` lines of a unit file, every value of a repeated key kept. */
function directives(unit: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!]);
  }
  return found;
}

async function which(command: string): Promise<string | undefined> {
  try {
    return (await run('sh', ['-c', `command -v ${command}`])).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

describe('deploy/plc-gateway.service', () => {
  test('a dedicated user, production, restart on failure, settings and data outside the install, hardening', async () => {
    const unit = directives(await readFile(join(deploy, 'plc-gateway.service'), 'utf8'));
    const one = (key: string): string | undefined => unit.get(key)?.[0];
    assert.equal(one('User'), 'plc-gateway');
    assert.equal(one('Environment'), 'NODE_ENV=production');
    assert.equal(one('Restart'), 'on-failure');
    assert.match(
      one('ExecStart') ?? '',
      /^\/usr\/bin\/node \/opt\/plc-gateway\/.* serve --config \/etc\/plc-gateway\//,
    );
    assert.equal(one('StateDirectory'), 'plc-gateway');
    assert.equal(one('WorkingDirectory'), '/var/lib/plc-gateway');
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
    ])
      assert.equal(one(key!), value, key);
  });

  test('systemd-analyze verify reports nothing', async (t) => {
    const analyze = await which('systemd-analyze');
    const node = await which('node');
    if (analyze === undefined || node === undefined) {
      t.skip('systemd-analyze is not installed (CI installs it and verifies the unit itself)');
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), 'unit-'));
    try {
      const unit = await readFile(join(deploy, 'plc-gateway.service'), 'utf8');
      // verify checks that ExecStart's program exists: name this machine's node.
      const file = join(dir, 'plc-gateway.service');
      await writeFile(file, unit.replace('/usr/bin/node ', `${node} `));
      const { stdout, stderr } = await run(analyze, ['verify', file]);
      assert.equal(stdout + stderr, '');
      // A bad value is only a warning to verify, which is why its output must be empty.
      await writeFile(file, unit.replace('Restart=on-failure', 'Restart=sometimes'));
      const bad = await run(analyze, ['verify', file]);
      assert.match(bad.stdout + bad.stderr, /restart specifier/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/Dockerfile', () => {
  test('multi-stage, non-root, NODE_ENV=production, a health check on /health/live, settings and data as volumes', async () => {
    const file = await readFile(join(deploy, 'Dockerfile'), 'utf8');
    assert.equal(file.match(/^FROM /gm)?.length, 2);
    assert.match(file, /^USER node$/m);
    assert.match(file, /^ENV NODE_ENV=production$/m);
    assert.match(file, /^HEALTHCHECK [^]*\/health\/live/m);
    assert.match(file, /^VOLUME \["\/etc\/plc-gateway", "\/var\/lib\/plc-gateway"\]$/m);
    assert.match(file, /npm ci --omit=dev/);
  });
});
