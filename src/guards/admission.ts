// The checks every call to a guarded operation passes after authentication, in the documented order:
// 501 feature flag -> 403 policy -> 403 no PLC at all (fleet routes) / 404 plc -> 403 plc_access -> 429 route limit. HTTP routes run them from the
// guard hook; other front doors (MCP tools) run the very same function with the rule of the route they mirror.
import type { Config, FeatureName } from '../config/schema.ts';
import { AppError } from '../errors.ts';
import type { TargetRegistry } from '../targets/registry.ts';
import type { PlcTarget } from '../targets/target.ts';
import { describePolicy, satisfiesPolicy, type PolicyName } from './policies.ts';
import { canAccessPlc, type Principal } from './principal.ts';
import type { LimitSubject, RateLimits, RouteLimitName } from './rate-limit/rate-limits.ts';
import type { PlcScope } from './route-options.ts';

/** What a route (or a tool mirroring it) demands of its caller. */
interface AdmissionRule {
  readonly feature?: FeatureName | undefined;
  readonly policy?: PolicyName | undefined;
  readonly plcScoped?: boolean | PlcScope | undefined;
  readonly limit?: RouteLimitName | readonly RouteLimitName[] | undefined;
  /** Answers for every PLC the token permits: a token that permits none is refused instead of answered empty. */
  readonly fleet?: boolean | undefined;
}

export interface AdmissionDeps {
  readonly config: Config;
  readonly registry: TargetRegistry;
  readonly limits: RateLimits;
}

interface AdmissionRequest {
  readonly principal: Principal | null;
  /** The plcId as the caller spelled it (only read when the rule is plcScoped). */
  readonly plcId?: unknown;
  /** Who spends the route limits: the principal's sub, or a client address on anonymous routes. */
  readonly user: string;
}

interface Admitted {
  /** The PLC a plcScoped rule names; null otherwise. */
  readonly target: PlcTarget | null;
  /** Pending while a shared limit store decides (it rejects with 429); undefined when decided in memory. */
  readonly spent: Promise<void> | undefined;
}

export type Admit = (rule: AdmissionRule, request: AdmissionRequest) => Admitted;

/**
 * True when the token reaches at least one configured PLC. A claim naming only PLCs that are not configured grants
 * nothing here: a fleet answer for it would be empty however it is asked.
 */
function grantsAnyPlc(principal: Principal, registry: TargetRegistry): boolean {
  return principal.plcAccess.all || registry.list().some((target) => canAccessPlc(principal, target.id));
}

/** Builds the admission check; it throws AppError for a refusal decided at once. */
export function createAdmission({ config, registry, limits }: AdmissionDeps): Admit {
  const spendRouteLimits = (
    names: readonly RouteLimitName[],
    subject: LimitSubject,
    from = 0,
  ): Promise<void> | undefined => {
    for (let i = from; i < names.length; i++) {
      const spent = limits.route(names[i] as RouteLimitName, subject);
      if (spent instanceof Promise) return spent.then(() => spendRouteLimits(names, subject, i + 1));
    }
    return undefined;
  };

  return (rule, { principal, plcId: asked, user }) => {
    const feature = rule.feature;
    if (feature !== undefined && !config.features[feature]) {
      throw new AppError('FEATURE_DISABLED', `The ${feature} feature is disabled (Features:${feature}).`);
    }
    if (rule.policy !== undefined && (principal === null || !satisfiesPolicy(principal, rule.policy))) {
      throw new AppError('FORBIDDEN', `The token does not grant this: ${describePolicy(rule.policy)}`);
    }

    if (rule.fleet === true && principal !== null && !grantsAnyPlc(principal, registry)) {
      throw new AppError('PLC_ACCESS_DENIED', 'this token grants no PLC');
    }

    // From here on the PLC is named by its configured id, however the caller spelled it (limits, messages).
    let target: PlcTarget | null = null;
    const scope = rule.plcScoped;
    if (scope !== undefined && scope !== false) {
      const found = typeof asked === 'string' ? registry.get(asked) : undefined;
      if (found === undefined) throw new AppError('PLC_NOT_FOUND', 'No PLC is configured under this plcId.');
      if (scope !== true && !scope.serves(found.id)) {
        throw new AppError('PLC_NOT_FOUND', scope.notServed(found.id));
      }
      if (principal !== null && !canAccessPlc(principal, found.id)) {
        throw new AppError('PLC_ACCESS_DENIED', `The token's plc_access claim does not include ${found.id}.`);
      }
      target = found;
    }

    const names = rule.limit === undefined ? [] : typeof rule.limit === 'string' ? [rule.limit] : rule.limit;
    const spent = spendRouteLimits(names, target === null ? { user } : { user, plcId: target.id });
    return { target, spent };
  };
}
