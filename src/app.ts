// The app factory: builds the fastify app for a config and a PLC registry, registering the request pipeline in
// order. It never listens, so tests drive it with `inject` and main.ts owns the socket.
import { setTimeout as delay } from 'node:timers/promises';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MemoryAuditStore, type AuditStore } from './audit/store.ts';
import { AuditTrail } from './audit/trail.ts';
import type { Config } from './config/schema.ts';
import { startCluster } from './cluster/start-cluster.ts';
import {
  adminRoutes,
  auditRoutes,
  programChangesRoutes,
  subscriptionRoutes,
} from './features/admin/index.ts';
import { consoleRoutes } from './features/console/index.ts';
import { alarmsRoutes } from './features/alarms/index.ts';
import { deviceRoutes } from './features/device/index.ts';
import {
  createEtherCatDiagnostics,
  etherCatDiagnosticsKey,
  etherCatRoutes,
} from './features/ethercat/index.ts';
import { filesRoutes } from './features/files/index.ts';
import { healthRoutes } from './features/health/index.ts';
import { historyRoutes } from './features/history/index.ts';
import { lifecycleRoutes } from './features/lifecycle/index.ts';
import { methodsRoutes } from './features/methods/index.ts';
import { plcsRoutes } from './features/plcs/index.ts';
import { simulationRoutes } from './features/simulation/index.ts';
import { symbolsRoutes } from './features/symbols/index.ts';
import { typesRoutes } from './features/types/index.ts';
import { variablesRoutes } from './features/variables/index.ts';
import { resolveKeySource } from './guards/auth/key-source.ts';
import type { FetchLike } from './guards/auth/oidc-discovery.ts';
import { createTokenVerifier } from './guards/auth/token-verifier.ts';
import { installGuards } from './guards/install-guards.ts';
import type { Clock } from './guards/rate-limit/limiter.ts';
import { createRateLimits } from './guards/rate-limit/rate-limits.ts';
import { installAudit } from './http/audit-hooks.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './http/error-handler.ts';
import type { FeatureContext, Sleep } from './feature-kit/feature-context.ts';
import { AccessLog, loggerOptions } from './http/logging.ts';
import { installMetrics } from './http/metrics.ts';
import { installOpenApi } from './http/openapi.ts';
import { installStreams, type StreamTimings } from './http/streams/install.ts';
import { timerClock, type DeadlineClock } from './http/streams/token-deadlines.ts';
import { notificationsRoutes } from './features/notifications/index.ts';
import { installProtocolRules, serverTimeouts } from './http/protocol-rules.ts';
import { installSendTimeout, type SendWatchTimer } from './http/send-timeout.ts';
import { installStrictQueryNumbers } from './http/strict-query-numbers.ts';
import { createRouteIndex } from './http/route-index.ts';
import { installRouteCatalog } from './http/route-catalog.ts';
import { createServiceDirectory, type ServiceDirectory } from './feature-kit/service-directory.ts';
import { mcpRoutes } from './features/mcp/index.ts';
import { mqttRoutes } from './features/mqtt/index.ts';
import type { TargetRegistry } from './targets/registry.ts';

export interface AppDeps {
  readonly registry: TargetRegistry;
  /** false/absent: silent; true: pino at `Logging.Level`; an object: pino options merged in (e.g. a stream). */
  readonly logger?: boolean | object;
  /** A logger already built (createLogger); wins over `logger`. */
  readonly loggerInstance?: FastifyBaseLogger;
  /** Milliseconds clock for rate limits; tests inject one to step time. */
  readonly now?: Clock;
  /** Waits between samples of long-running operations (watch_variables); tests drive it by hand. */
  readonly sleep?: Sleep;
  /** Milliseconds clock for token times (exp, nbf, iat); tests inject one. */
  readonly tokenNow?: Clock;
  /** Ends streams when their tokens expire: the token clock with its timers; tests drive it by hand. */
  readonly tokenClock?: DeadlineClock;
  /** The gateway clock with timers (alarm shelves run out on it); default: the real clock over `now`. */
  readonly deadlines?: DeadlineClock;
  /** fetch used for OIDC discovery (`Auth.Authority`). */
  readonly fetch?: FetchLike;
  /** Where audit records go; default: an in-memory ring of `Audit.Length` records. */
  readonly auditStore?: AuditStore;
  /** Stream timers (hub ping and client timeout, SSE heartbeat); tests shorten them. */
  readonly streamTimings?: Partial<StreamTimings>;
  /** Folder of the built web console; default dist/console. */
  readonly consoleDir?: string;
  /** Clock and sweep schedule of the send timeout (Http.SendTimeoutSeconds); tests drive them. */
  readonly sendWatch?: SendWatchTimer;
  /** The port the app will listen on, for the default `Cluster.ReplicaId` (host name and port). */
  readonly port?: number;
  /** Publishes services before the features register; tests stand in for one a feature would publish. */
  readonly provide?: (services: ServiceDirectory) => void;
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
    ...(deps.loggerInstance
      ? { loggerInstance: deps.loggerInstance }
      : { logger: loggerOptions(deps.logger, settings.Logging.Level) }),
    logController: new AccessLog(),
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

  // Error and not-found handlers first: fastify binds a route's error handler when the route is registered.
  installErrorHandlers(app, createRouteIndex());
  const routes = installRouteCatalog(app);
  installProtocolRules(app);
  installStrictQueryNumbers(app);
  // Then the pipeline in request order: logging is the logger above; metrics time the whole request.
  const metrics = installMetrics(app);
  installSendTimeout(app, settings.Http.SendTimeoutSeconds, metrics, deps.sendWatch);
  const cluster = await startCluster(settings, { log: app.log, metrics, now, port: deps.port });
  if (cluster) app.addHook('onClose', () => cluster.close());
  const limits = createRateLimits(settings.RateLimiting, now, cluster?.limiterStore);
  await installOpenApi(app, config);
  // Before the guards: the WebSocket plugin must mark upgrade requests first, so a refused upgrade's socket is
  // closed after its JSON answer.
  const tokenClock = deps.tokenClock ?? timerClock(deps.tokenNow);
  const streams = await installStreams(
    app,
    settings,
    metrics,
    deps.streamTimings,
    cluster?.streamLedger,
    tokenClock,
  );
  // A key withdrawn from the identity provider's key set ends the streams its tokens opened.
  keySource.onKeySet?.((present) => streams.deadlines.keysChanged(present));
  installGuards(app, {
    config,
    registry: deps.registry,
    verifier: createTokenVerifier(settings.Auth, keySource, tokenClock.now),
    limits,
  });
  const auditStore =
    deps.auditStore ??
    cluster?.auditStore ??
    new MemoryAuditStore({ changes: settings.Audit.Length, refusals: settings.Audit.RefusalLength });
  const audit = new AuditTrail(auditStore, app.log, now, (plcId) => deps.registry.get(plcId)?.id ?? plcId);
  installAudit(app, audit);

  // Feature areas: one line each, all given the same context.
  const services = createServiceDirectory();
  services.provide(etherCatDiagnosticsKey, createEtherCatDiagnostics(config, deps.registry));
  deps.provide?.(services);
  const context: FeatureContext = {
    config,
    registry: deps.registry,
    limits,
    metrics,
    now,
    deadlines: deps.deadlines ?? timerClock(now),
    audit,
    streams,
    ...(cluster ? { cluster } : {}),
    sleep: deps.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
    services,
    routes,
  };
  await app.register(plcsRoutes, context);
  await app.register(healthRoutes, context);
  await app.register(simulationRoutes, context);
  await app.register(symbolsRoutes, context);
  await app.register(typesRoutes, context);
  await app.register(deviceRoutes, context);
  await app.register(variablesRoutes, context);
  await app.register(methodsRoutes, context);
  await app.register(filesRoutes, context);
  await app.register(lifecycleRoutes, context);
  await app.register(auditRoutes, context);
  await app.register(notificationsRoutes, context);
  await app.register(adminRoutes, context);
  await app.register(programChangesRoutes, context);
  await app.register(subscriptionRoutes, context);
  await app.register(alarmsRoutes, context);
  await app.register(etherCatRoutes, context);
  // After notifications (it records on their shared subscriptions) and alarms (it stores their transitions).
  await app.register(historyRoutes, context);
  await app.register(mqttRoutes, context);
  await app.register(consoleRoutes, { config, ...(deps.consoleDir ? { dir: deps.consoleDir } : {}) });

  // Last: the MCP tools mirror the routes above and use the services they published.
  await app.register(mcpRoutes, context);
  return app;
}
