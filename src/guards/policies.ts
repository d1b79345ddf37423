// Named authorization policies: the effective permission is the token's role intersected with its scope.
import type { Principal } from './principal.ts';

export type PolicyName = 'ReadAccess' | 'WriteAccess' | 'LifecycleAccess' | 'Admin';

interface PolicyRule {
  /** Any one of these roles. */
  readonly roles: readonly string[];
  /** This scope as well, or null when the role alone decides. */
  readonly scope: string | null;
}

// Roles rank viewer < operator < admin, so each rule lists its minimum role and everything above it.
const rules: Readonly<Record<PolicyName, PolicyRule>> = {
  ReadAccess: { roles: ['viewer', 'operator', 'admin'], scope: 'ads:read' },
  WriteAccess: { roles: ['operator', 'admin'], scope: 'ads:write' },
  LifecycleAccess: { roles: ['admin'], scope: 'ads:lifecycle' },
  Admin: { roles: ['admin'], scope: null },
};

/** True when the principal holds one of the policy's roles and, where the policy names one, its scope. */
export function satisfiesPolicy(principal: Pick<Principal, 'roles' | 'scopes'>, policy: PolicyName): boolean {
  const rule = rules[policy];
  const hasRole = rule.roles.some((role) => principal.roles.has(role));
  const hasScope = rule.scope === null || principal.scopes.has(rule.scope);
  return hasRole && hasScope;
}

/** A caller-facing description of what a policy needs, for 403 messages. */
export function describePolicy(policy: PolicyName): string {
  const rule = rules[policy];
  const roles = rule.roles.join(', ');
  return rule.scope === null
    ? `${policy} requires one of the roles ${roles}.`
    : `${policy} requires one of the roles ${roles} and the scope ${rule.scope}.`;
}
