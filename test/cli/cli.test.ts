import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli } from '../../src/main.ts';
import { commands } from '../../src/cli/commands.ts';
import { writeSettings } from '../config/helpers.ts';
import { capture } from './capture.ts';

describe('plc-gateway CLI', () => {
  it('prints the top-level help listing every command', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const c = capture();
      assert.equal(await runCli([flag], c.io), 0);
      assert.match(c.out(), /^Usage: plc-gateway \[command\] \[options\]/);
      const lines = c.out().split('\n');
      for (const command of commands) {
        assert.ok(
          lines.some((l) => l.startsWith(`  ${command.name} `) && l.endsWith(command.summary)),
          command.name,
        );
      }
    }
  });

  it('prints each command help with its options', async () => {
    const expected: Record<string, RegExp[]> = {
      serve: [/Usage: plc-gateway serve/, /--config FILE/, /--port N/, /--host HOST/],
      token: [/Usage: plc-gateway token/, /--sub NAME/, /--plc-access IDS/, /--ttl DURATION/, /--issuer ISS/],
    };
    for (const [name, patterns] of Object.entries(expected)) {
      const c = capture();
      assert.equal(await runCli([name, '--help'], c.io), 0);
      for (const pattern of patterns) assert.match(c.out(), pattern);
    }
  });

  it('prints the package version', async () => {
    const c = capture();
    assert.equal(await runCli(['--version'], c.io), 0);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    assert.equal(c.out().trim(), pkg.version);
  });

  it('exits 2 on an unknown command', async () => {
    const c = capture();
    assert.equal(await runCli(['frobnicate'], c.io), 2);
    assert.match(c.err(), /unknown command 'frobnicate'/);
  });

  it('exits 2 on a bad serve option', async () => {
    const c = capture();
    assert.equal(await runCli(['serve', '--port', 'eighty'], c.io), 2);
    assert.match(c.err(), /--port must be 0-65535/);
    const d = capture();
    assert.equal(await runCli(['serve', 'extra'], d.io), 2);
    assert.match(d.err(), /unexpected argument 'extra'/);
  });

  it('serve exits 1 listing every configuration problem (also as the default command)', async () => {
    const config = writeSettings({
      Auth: {},
      PlcTargets: { line1: { Mode: 'Virtual' } },
      PlcAlarms: { Targets: { line9: { SymbolPath: 'GVL.a' } } },
    });
    for (const argv of [
      ['serve', '--config', config],
      ['--config', config],
    ]) {
      const c = capture();
      assert.equal(await runCli(argv, c.io), 1);
      const lines = c.err().trim().split('\n');
      assert.match(lines[0] ?? '', /invalid configuration/);
      assert.ok(lines.includes('  - PlcTargets.line1.Mode: must be Real or Simulated'), c.err());
      assert.ok(
        lines.includes(
          '  - PlcAlarms.Targets.line9: names no configured PLC (add PlcTargets.line9 or remove this entry)',
        ),
      );
      assert.ok(lines.some((l) => l.startsWith('  - Auth: needs one key source')));
    }
  });

  it('serve looks for appsettings.json in the working folder by default', async () => {
    const c = capture({ cwd: '/nonexistent-folder-for-test' });
    assert.equal(await runCli(['serve'], c.io), 1);
    assert.match(c.err(), /cannot read \/nonexistent-folder-for-test\/appsettings\.json: no such file/);
  });
});
