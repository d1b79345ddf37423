// The guard chain, one onRequest hook so it runs before body parsing and validation, in the documented order:
// 401 auth -> 429 global limit -> 501 feature flag -> 403 policy -> 404 plc -> 403 plc_access -> 429 route limit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config/schema.ts';
import { AppError } from '../errors.ts';
import type { TargetRegistry } from '../targets/registry.ts';
import { extractBearerToken } from './auth/bearer.ts';
import type { TokenVerifier } from './auth/token-verifier.ts';
import { describePolicy, satisfiesPolicy } from './policies.ts';
import { canAccessPlc, principalFromClaims, type Principal } from './principal.ts';
import type { RateLimits } from './rate-limit/rate-limits.ts';
import '../http/route-config.ts';

export interface GuardDeps {
  readonly config: Config;
  readonly registry: TargetRegistry;
  readonly verifier: TokenVerifier;
  readonly limits: RateLimits;
}

/** True for routes that need a bearer token: everything under /api, and any route naming a policy. */
export function requiresToken(url: string | undefined, policy: unknown): boolean {
  return url === '/api' || (url?.startsWith('/api/') ?? false) || policy !== undefined;
}

export function installGuards(app: FastifyInstance, deps: GuardDeps): void {
  const { config, registry, verifier, limits } = deps;
  const auth = config.settings.Auth;
  app.decorateRequest('principal', null);
  app.decorateRequest('plcTarget', null);
  // WebSocket routes (`{ websocket: true }`, as @fastify/websocket declares them) get the WebSocket token rules
  // without having to repeat the marker in their config.
  app.addHook('onRoute', (route) => {
    if ((route as { websocket?: unknown }).websocket === true)
      route.config = { ...route.config, websocket: true };
  });

  const authenticate = async (request: FastifyRequest, websocket: boolean): Promise<Principal> => {
    const token = extractBearerToken(request, websocket);
    const claims = await verifier.verify(token);
    return principalFromClaims(claims, {
      roleClaimType: auth.RoleClaimType,
      defaultPlcAccess: auth.DefaultPlcAccess,
      plcAccessClaimFormat: auth.PlcAccessClaimFormat,
    });
  };

  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const options = request.routeOptions.config;
    const principal = requiresToken(request.routeOptions.url, options.policy)
      ? await authenticate(request, options.websocket === true)
      : null;
    request.principal = principal;
    if (principal !== null) limits.global(principal.sub);

    const feature = options.feature;
    if (feature !== undefined && !config.features[feature]) {
      throw new AppError('FEATURE_DISABLED', `The ${feature} feature is disabled (Features:${feature}).`);
    }
    if (options.policy !== undefined && (principal === null || !satisfiesPolicy(principal, options.policy))) {
      throw new AppError('FORBIDDEN', `The token does not grant this: ${describePolicy(options.policy)}`);
    }

    let plcId: string | undefined;
    if (options.plcScoped === true) {
      plcId = (request.params as { plcId?: unknown }).plcId as string | undefined;
      const target = typeof plcId === 'string' ? registry.get(plcId) : undefined;
      if (plcId === undefined || target === undefined) {
        throw new AppError('PLC_NOT_FOUND', 'No PLC is configured under this plcId.');
      }
      if (principal !== null && !canAccessPlc(principal, plcId)) {
        throw new AppError('PLC_ACCESS_DENIED', `The token's plc_access claim does not include ${plcId}.`);
      }
      request.plcTarget = target;
    }

    const routeLimits =
      options.limit === undefined ? [] : typeof options.limit === 'string' ? [options.limit] : options.limit;
    const user = principal?.sub ?? `ip:${request.ip}`;
    for (const name of routeLimits) limits.route(name, plcId === undefined ? { user } : { user, plcId });
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
