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
import '../http/route-config.ts';

export interface GuardDeps {
  readonly config: Config;
  readonly registry: TargetRegistry;
  readonly verifier: TokenVerifier;
  readonly limits: RateLimits;
}

/** True for routes that need a bearer token: everything under /api, and any route naming a policy or `authenticate`. */
export function requiresToken(
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

  const admit = (request: FastifyRequest, principal: Principal | null): void => {
    const options = request.routeOptions.config;
    request.principal = principal;
    if (principal !== null) limits.global(principal.sub);

    request.plcTarget = admission(options, {
      principal,
      plcId: (request.params as { plcId?: unknown }).plcId,
      user: principal?.sub ?? `ip:${request.ip}`,
    });
  };

  /** Admits the request now and answers undefined, or answers the token that must be verified first. */
  const admitKnown = (request: FastifyRequest): string | undefined => {
    if (request.is404) return undefined;
    const options = request.routeOptions.config;
    if (!requiresToken(request.routeOptions.url, options)) {
      admit(request, null);
      return undefined;
    }
    const token = extractBearerToken(request, options.websocket === true);
    const known = verifier.known(token);
    if (known === undefined) return token;
    admit(request, principalFor(known));
    return undefined;
  };

  // A callback hook rather than an async one: a token verified earlier is admitted without a promise in between.
  app.addHook('onRequest', (request, _reply, done) => {
    let unverified: string | undefined;
    try {
      unverified = admitKnown(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (unverified === undefined) {
      done();
      return;
    }
    verifier.verify(unverified).then(
      (claims) => {
        let refused: Error | undefined;
        try {
          admit(request, principalFor(claims));
        } catch (err) {
          refused = err as Error;
        }
        done(refused);
      },
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
