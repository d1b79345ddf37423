// Claims to principal and policies: roles, scopes, plc_access, and role ∩ scope per policy (pure tables).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { satisfiesPolicy, type PolicyName } from '../../src/guards/policies.ts';
import {
  canAccessPlc,
  plcAccessFrom,
  principalFromClaims,
  type PlcAccessClaimFormat,
} from '../../src/guards/principal.ts';
import { AppError } from '../../src/errors.ts';

const options = {
  roleClaimType: 'role',
  defaultPlcAccess: 'none' as const,
  plcAccessClaimFormat: 'JsonArray' as const,
};

describe('principalFromClaims', () => {
  test('roles as string or array, scopes from scope or scp', () => {
    const cases: Array<[Record<string, unknown>, string[], string[]]> = [
      [{ role: 'viewer', scope: 'ads:read ads:write' }, ['viewer'], ['ads:read', 'ads:write']],
      [{ role: ['viewer', 'operator'], scp: ['ads:read'] }, ['viewer', 'operator'], ['ads:read']],
      [{ role: 'admin', scp: 'ads:lifecycle ads:read' }, ['admin'], ['ads:lifecycle', 'ads:read']],
      [{ role: [1, 'admin', null], scope: 42 }, ['admin'], []],
      // RFC 8693: scope is a string; an array there grants nothing.
      [{ role: 'admin', scope: ['ads:read', 'ads:write'] }, ['admin'], []],
      [{}, [], []],
    ];
    for (const [claims, roles, scopes] of cases) {
      const p = principalFromClaims({ sub: 'u', ...claims }, options);
      assert.deepEqual([...p.roles].sort(), roles.sort(), JSON.stringify(claims));
      assert.deepEqual([...p.scopes].sort(), scopes.sort(), JSON.stringify(claims));
    }
  });

  test('RoleClaimType names the claim, also a nested one', () => {
    const custom = principalFromClaims(
      { sub: 'u', groups: ['operator'] },
      { ...options, roleClaimType: 'groups' },
    );
    assert.deepEqual([...custom.roles], ['operator']);
    const nested = principalFromClaims(
      { sub: 'u', realm_access: { roles: ['admin'] } },
      { ...options, roleClaimType: 'realm_access.roles' },
    );
    assert.deepEqual([...nested.roles], ['admin']);
    const uri = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role';
    const dotted = principalFromClaims({ sub: 'u', [uri]: 'viewer' }, { ...options, roleClaimType: uri });
    assert.deepEqual([...dotted.roles], ['viewer']);
  });

  test('a missing or empty sub is refused with 401', () => {
    for (const sub of [undefined, '', 7]) {
      assert.throws(
        () => principalFromClaims({ sub }, options),
        (err: unknown) => err instanceof AppError && err.code === 'UNAUTHORIZED',
      );
    }
  });
});

describe('plc_access', () => {
  test('claim forms', () => {
    const cases: Array<[unknown, 'none' | '*', string[], boolean, PlcAccessClaimFormat?]> = [
      // claim, default, PLCs that must be allowed, whether 'other' is allowed, claim format
      [['line1', 'line2'], 'none', ['line1', 'line2'], false],
      [['*'], 'none', ['line1', 'anything'], true],
      [[], '*', [], false],
      [undefined, 'none', [], false],
      [undefined, '*', ['line1'], true],
      // JSON in a string grants nothing unless the format allows it.
      ['["line1"]', '*', [], false],
      ['["*"]', '*', [], false],
      ['["line1"]', 'none', ['line1'], false, 'JsonArrayOrString'],
      ['["*"]', 'none', ['x'], true, 'JsonArrayOrString'],
      ['line1', '*', [], false, 'JsonArrayOrString'],
      ['line1', '*', [], false],
      [{ line1: true }, '*', [], false],
      [['line1', 3], '*', [], false],
      [null, '*', [], false],
    ];
    for (const [claim, fallback, allowed, other, format] of cases) {
      const access = { plcAccess: plcAccessFrom(claim, fallback, format) };
      for (const id of allowed) assert.ok(canAccessPlc(access, id), `${JSON.stringify(claim)} -> ${id}`);
      assert.equal(canAccessPlc(access, 'other'), other, JSON.stringify(claim));
    }
  });
});

describe('policies: role ∩ scope', () => {
  const table: Array<[string[], string[], PolicyName, boolean]> = [
    [['viewer'], ['ads:read'], 'ReadAccess', true],
    [['operator'], ['ads:read'], 'ReadAccess', true],
    [['admin'], ['ads:read'], 'ReadAccess', true],
    [['viewer'], [], 'ReadAccess', false],
    [[], ['ads:read'], 'ReadAccess', false],
    [['guest'], ['ads:read'], 'ReadAccess', false],
    [['viewer'], ['ads:write'], 'WriteAccess', false],
    [['operator'], ['ads:write'], 'WriteAccess', true],
    [['admin'], ['ads:write'], 'WriteAccess', true],
    [['operator'], ['ads:read'], 'WriteAccess', false],
    [['operator'], ['ads:lifecycle'], 'LifecycleAccess', false],
    [['admin'], ['ads:write'], 'LifecycleAccess', false],
    [['admin'], ['ads:lifecycle'], 'LifecycleAccess', true],
    [['admin'], [], 'Admin', true],
    [['operator'], ['ads:read', 'ads:write', 'ads:lifecycle'], 'Admin', false],
    [['viewer', 'admin'], ['ads:lifecycle'], 'LifecycleAccess', true],
  ];
  for (const [roles, scopes, policy, expected] of table) {
    test(`${roles.join('+') || 'no role'} with ${scopes.join(' ') || 'no scope'}: ${policy} ${expected ? 'granted' : 'denied'}`, () => {
      assert.equal(satisfiesPolicy({ roles: new Set(roles), scopes: new Set(scopes) }, policy), expected);
    });
  }
});
