// The app factory: builds the fastify app for a config and a PLC registry, registering the request pipeline in
// order. It never listens, so tests drive it with `inject` and main.ts owns the socket.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config/schema.ts';
import { alarmsRoutes } from './features/alarms/routes.ts';
import { deviceRoutes } from './features/device/routes.ts';
import { healthRoutes } from './features/health/routes.ts';
import { methodsRoutes } from './features/methods/routes.ts';
import { plcsRoutes } from './features/plcs/routes.ts';
import { simulationRoutes } from './features/simulation/routes.ts';
import { symbolsRoutes } from './features/symbols/routes.ts';
import { typesRoutes } from './features/types/routes.ts';
import { variablesRoutes } from './features/variables/routes.ts';
import { resolveKeySource } from './guards/auth/key-source.ts';
import type { FetchLike } from './guards/auth/oidc-discovery.ts';
import { createTokenVerifier } from './guards/auth/token-verifier.ts';
import { installGuards } from './guards/install-guards.ts';
import type { Clock } from './guards/rate-limit/limiter.ts';
import { createRateLimits } from './guards/rate-limit/rate-limits.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './http/error-handler.ts';
import type { FeatureContext } from './http/feature-context.ts';
import { loggerOptions } from './http/logging.ts';
import { installMetrics } from './http/metrics.ts';
import { installOpenApi } from './http/openapi.ts';
import { installProtocolRules, serverTimeouts } from './http/protocol-rules.ts';
import { installStrictQueryNumbers } from './http/strict-query-numbers.ts';
import { createRouteIndex } from './http/route-index.ts';
import type { TargetRegistry } from './targets/registry.ts';

export interface AppDeps {
  readonly registry: TargetRegistry;
  /** false/absent: silent; true: pino at `Logging.Level`; an object: pino options merged in (e.g. a stream). */
  readonly logger?: boolean | object;
  /** Milliseconds clock for rate limits; tests inject one to step time. */
  readonly now?: Clock;
  /** Milliseconds clock for token times (exp, nbf, iat); tests inject one. */
  readonly tokenNow?: Clock;
  /** fetch used for OIDC discovery (`Auth.Authority`). */
  readonly fetch?: FetchLike;
}

const oneMiB = 1024 * 1024;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { settings } = config;
  const now = deps.now ?? Date.now;
  // Resolved first: a missing key file or a second key source fails start-up, not the first request.
  const keySource = await resolveKeySource(settings.Auth, {
    contentRoot: config.contentRoot,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });

  const app = Fastify({
    logger: loggerOptions(deps.logger, settings.Logging.Level),
    bodyLimit: oneMiB,
    // Long enough that any plcId reaches the PLC lookup (and its 404) instead of the router.
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ...serverTimeouts(settings.Http),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // JSON only; areas that take other bodies register their own parser.
  app.removeContentTypeParser('text/plain');
  // An empty body under a JSON content type is no body, as many clients send on bodiless POSTs; routes that
  // need a body still answer 400 from their schema.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') done(null, undefined);
    else void parseJson(request, text, done);
  });

  const limits = createRateLimits(settings.RateLimiting, now);

  // Error and not-found handlers first: fastify binds a route's error handler when the route is registered.
  installErrorHandlers(app, createRouteIndex());
  installProtocolRules(app);
  installStrictQueryNumbers(app);
  // Then the pipeline in request order: logging is the logger above; metrics time the whole request.
  const metrics = installMetrics(app);
  await installOpenApi(app, config);
  installGuards(app, {
    config,
    registry: deps.registry,
    verifier: createTokenVerifier(settings.Auth, keySource, deps.tokenNow),
    limits,
  });

  // Feature areas: one line each, all given the same context.
  const context: FeatureContext = { config, registry: deps.registry, limits, metrics, now };
  await app.register(plcsRoutes, context);
  await app.register(healthRoutes, context);
  await app.register(simulationRoutes, context);
  await app.register(symbolsRoutes, context);
  await app.register(typesRoutes, context);
  await app.register(deviceRoutes, context);
  await app.register(variablesRoutes, context);
  await app.register(methodsRoutes, context);
  await app.register(alarmsRoutes, context);

  return app;
}
