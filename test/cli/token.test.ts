import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { runCli } from '../../src/main.ts';
import { developmentSigningKey } from '../../src/config/development-key.ts';
import { parseDuration } from '../../src/cli/duration.ts';
import { writeSettings } from '../config/helpers.ts';
import { capture } from './capture.ts';

const secret = 's'.repeat(40);
const key = (text: string) => new TextEncoder().encode(text);
const emptyDir = () => mkdtempSync(join(tmpdir(), 'plc-gateway-cli-'));

describe('plc-gateway token', () => {
  it('signs with Auth.SigningKey and carries every claim', async () => {
    const config = writeSettings({
      Auth: {
        SigningKey: secret,
        Issuer: 'https://issuer.test',
        Audience: 'plc-gateway',
        RoleClaimType: 'roles',
      },
      PlcTargets: { line1: { Mode: 'Simulated' }, line2: { Mode: 'Simulated' } },
    });
    const c = capture();
    const code = await runCli(
      [
        'token',
        '--config',
        config,
        '--sub',
        'alice',
        '--role',
        'admin',
        '--scope',
        'ads:read ads:write ads:lifecycle',
        '--plc-access',
        'line1,line2',
        '--ttl',
        '1h',
      ],
      c.io,
    );
    assert.equal(code, 0, c.err());
    assert.equal(c.err(), '');
    const token = c.out().trim();
    assert.equal(decodeProtectedHeader(token).alg, 'HS256');
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: 'https://issuer.test',
      audience: 'plc-gateway',
    });
    assert.equal(payload.sub, 'alice');
    assert.equal(payload.roles, 'admin');
    assert.equal(payload.scope, 'ads:read ads:write ads:lifecycle');
    assert.deepEqual(payload.plc_access, ['line1', 'line2']);
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 3600);
    await assert.rejects(jwtVerify(token, key(developmentSigningKey)));
  });

  it('uses the development key and defaults without a settings file', async () => {
    const c = capture({ cwd: emptyDir() });
    assert.equal(await runCli(['token', '--sub', 'ci', '--ttl', '15m'], c.io), 0, c.err());
    const { payload } = await jwtVerify(c.out().trim(), key(developmentSigningKey));
    assert.equal(payload.role, 'viewer');
    assert.equal(payload.scope, 'ads:read');
    assert.deepEqual(payload.plc_access, ['*']);
    assert.equal(payload.iss, undefined);
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 900);
  });

  it('reads appsettings.json from the working folder, and --issuer/--audience override it', async () => {
    const config = writeSettings({ Auth: { UseDevelopmentKey: true, Issuer: 'cfg-iss' } });
    const c = capture({ cwd: join(config, '..') });
    const code = await runCli(
      ['token', '--sub', 'bob', '--role', 'operator,viewer', '--issuer', 'cli-iss', '--audience', 'aud1'],
      c.io,
    );
    assert.equal(code, 0, c.err());
    const { payload } = await jwtVerify(c.out().trim(), key(developmentSigningKey), {
      issuer: 'cli-iss',
      audience: 'aud1',
    });
    assert.deepEqual(payload.role, ['operator', 'viewer']);
  });

  it('warns about plcIds that are not configured', async () => {
    const config = writeSettings({
      Auth: { UseDevelopmentKey: true },
      PlcTargets: { line1: { Mode: 'Simulated' } },
    });
    const c = capture();
    assert.equal(
      await runCli(['token', '--config', config, '--sub', 'a', '--plc-access', 'line1,line7'], c.io),
      0,
    );
    assert.match(c.err(), /'line7' is not a configured PLC/);
  });

  it('fails with exit 1 when the settings verify tokens through another key source', async () => {
    const config = writeSettings({ Auth: { Authority: 'https://login.example.com' } });
    const c = capture();
    assert.equal(await runCli(['token', '--config', config, '--sub', 'a'], c.io), 1);
    assert.match(c.err(), /Auth\.Authority/);
    assert.equal(c.out(), '');
  });

  it('refuses the development key in production without a settings file', async () => {
    const c = capture({ cwd: emptyDir(), env: { NODE_ENV: 'production' } });
    assert.equal(await runCli(['token', '--sub', 'a'], c.io), 1);
    assert.match(c.err(), /NODE_ENV=production/);
  });

  const usageCases: Array<[string, string[], RegExp]> = [
    ['missing --sub', ['token'], /--sub NAME is required/],
    ['bad ttl', ['token', '--sub', 'a', '--ttl', '1w'], /--ttl must look like/],
    ['unknown role', ['token', '--sub', 'a', '--role', 'root'], /--role must be viewer, operator, admin/],
    ['bad plc id', ['token', '--sub', 'a', '--plc-access', 'line 1'], /--plc-access takes/],
    ['unknown option', ['token', '--sub', 'a', '--colour', 'red'], /Unknown option '--colour'/],
    ['missing value', ['token', '--sub'], /argument missing|--sub/],
  ];
  for (const [name, argv, message] of usageCases) {
    it(`exits 2 on ${name}`, async () => {
      const c = capture({ cwd: emptyDir() });
      assert.equal(await runCli(argv, c.io), 2);
      assert.match(c.err(), message);
      assert.match(c.err(), /plc-gateway token --help/);
      assert.equal(c.out(), '');
    });
  }
});

describe('parseDuration', () => {
  const cases: Array<[string, number | undefined]> = [
    ['90', 90],
    ['30s', 30],
    ['15m', 900],
    ['1h', 3600],
    ['7d', 604800],
    ['0s', undefined],
    ['1w', undefined],
    ['-5m', undefined],
    ['1.5h', undefined],
    ['', undefined],
  ];
  for (const [input, seconds] of cases) {
    it(`'${input}' -> ${String(seconds)}`, () => assert.equal(parseDuration(input), seconds));
  }
});
