// The guard chain, one onRequest hook so it runs before body parsing and validation, in the documented order:
// 401 auth -> 429 global limit -> then the admission checks (admission.ts): 501 feature flag -> 403 policy ->
// 404 plc -> 403 plc_access -> 429 route limit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JWTPayload } from 'jose';
import type { Config } from '../config/schema.ts';
import { AppError } from '../errors.ts';
import type { TargetRegistry } from '../targets/registry.ts';
import { extractBearerToken } from './auth/bearer.ts';
import type { TokenVerifier } from './auth/token-verifier.ts';
import { createAdmission } from './admission.ts';
import { principalFromClaims, type Principal } from './principal.ts';
import type { RateLimits } from './rate-limit/rate-limits.ts';
import './route-options.ts';

export interface GuardDeps {
  readonly config: Config;
  readonly registry: TargetRegistry;
  readonly verifier: TokenVerifier;
  readonly limits: RateLimits;
}

/** True for routes that need a bearer token: everything under /api, and any route naming a policy or `authenticate`. */
function requiresToken(
  url: string | undefined,
  options: { policy?: unknown; authenticate?: boolean },
): boolean {
  return (
    url === '/api' ||
    (url?.startsWith('/api/') ?? false) ||
    options.policy !== undefined ||
    options.authenticate === true
  );
}

export function installGuards(app: FastifyInstance, deps: GuardDeps): void {
  const { config, registry, verifier, limits } = deps;
  const auth = config.settings.Auth;
  const admission = createAdmission({ config, registry, limits });
  app.decorateRequest('principal', null);
  app.decorateRequest('plcTarget', null);
  // WebSocket routes (`{ websocket: true }` or a `wsHandler`, as @fastify/websocket declares them) get the
  // WebSocket token rules without having to repeat the marker in their config.
  app.addHook('onRoute', (route) => {
    const ws = route as { websocket?: unknown; wsHandler?: unknown };
    if (ws.websocket === true || typeof ws.wsHandler === 'function')
      route.config = { ...route.config, websocket: true };
  });

  // A principal per verified claims object: a cached token yields the same object, so its principal is built once.
  const principals = new WeakMap<JWTPayload, Principal>();
  const principalFor = (claims: JWTPayload): Principal => {
    let principal = principals.get(claims);
    if (principal === undefined) {
      principal = principalFromClaims(claims, {
        roleClaimType: auth.RoleClaimType,
        defaultPlcAccess: auth.DefaultPlcAccess,
        plcAccessClaimFormat: auth.PlcAccessClaimFormat,
      });
      principals.set(claims, principal);
    }
    return principal;
  };

  // Limits kept in memory decide at once, so admission stays synchronous; a shared store (Redis) answers later
  // and the rest of the chain runs when it has.
  const admit = (request: FastifyRequest, principal: Principal | null): Promise<void> | undefined => {
    request.principal = principal;
    const spent = principal === null ? undefined : limits.global(principal.sub);
    if (spent instanceof Promise) return spent.then(() => admitPastGlobal(request, principal));
    return admitPastGlobal(request, principal);
  };

  const admitPastGlobal = (
    request: FastifyRequest,
    principal: Principal | null,
  ): Promise<void> | undefined => {
    const options = request.routeOptions.config;

    const { target, spent } = admission(options, {
      principal,
      plcId: (request.params as { plcId?: unknown }).plcId,
      user: principal?.sub ?? `ip:${request.ip}`,
    });
    request.plcTarget = target;
    return spent;
  };

  /**
   * Admits the request now (undefined), or later (a promise: a shared limit store is asked), or answers the token
   * that must be verified first (a string).
   */
  const admitKnown = (request: FastifyRequest): string | undefined | Promise<void> => {
    if (request.is404) return undefined;
    const options = request.routeOptions.config;
    if (!requiresToken(request.routeOptions.url, options)) return admit(request, null);
    const token = extractBearerToken(request, options.websocket === true);
    const known = verifier.known(token);
    if (known === undefined) return token;
    return admit(request, principalFor(known));
  };

  // A callback hook rather than an async one: a token verified earlier is admitted without a promise in between.
  app.addHook('onRequest', (request, _reply, done) => {
    let outcome: string | undefined | Promise<void>;
    try {
      outcome = admitKnown(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (outcome === undefined) {
      done();
      return;
    }
    const later =
      typeof outcome === 'string'
        ? verifier.verify(outcome).then((claims) => admit(request, principalFor(claims)))
        : outcome;
    later.then(
      () => done(),
      (err: unknown) => done(err as Error),
    );
  });
}

/** The PLC of a `plcScoped` route, as resolved by the guards. */
export function targetOf(request: FastifyRequest): NonNullable<FastifyRequest['plcTarget']> {
  if (request.plcTarget === null) throw new AppError('PLC_NOT_FOUND');
  return request.plcTarget;
}

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new AppError('UNAUTHORIZED');
  return request.principal;
}
