// What every feature plugin is given: the config, the PLC registry, the rate limits, metrics, clock, audit and streams.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import type { AuditTrail } from '../audit/trail.ts';
import type { ClusterServices } from '../cluster/start-cluster.ts';
import type { Config } from '../config/schema.ts';
import type { RateLimits } from '../guards/rate-limit/rate-limits.ts';
import type { TargetRegistry } from '../targets/registry.ts';
import type { RouteCatalog } from '../http/route-catalog.ts';
import type { ServiceDirectory } from './service-directory.ts';
import type { Streams } from '../http/streams/install.ts';
import type { DeadlineClock } from '../http/streams/token-deadlines.ts';

/** Resolves after `ms`, or rejects once `signal` aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** The context object every feature plugin receives as its options (a type alias, as fastify requires). */
export type FeatureContext = {
  readonly config: Config;
  readonly registry: TargetRegistry;
  /** Named route limits (declare them with `config.limit`), spent by hand where a route cannot declare one. */
  readonly limits: RateLimits;
  /** Prometheus registry of this app, for feature metrics. */
  readonly metrics: Registry;
  /** Milliseconds clock shared with the limiters; injectable in tests. */
  readonly now: () => number;
  /** The gateway clock with timers at its instants (alarm shelves run out on it); injectable in tests. */
  readonly deadlines: DeadlineClock;
  /** Where state-changing operations not declared with a route's `config.audit` are recorded. */
  readonly audit: AuditTrail;
  /** SSE writer, SignalR hubs and the stream connection registry, for areas that push. */
  readonly streams: Streams;
  /** Cluster mode only (`Cluster.Redis`): the replicas' shared state. */
  readonly cluster?: ClusterServices;
  /** Waits between samples of long-running operations; injectable in tests. */
  readonly sleep: Sleep;
  /** The one way features share stateful services (EtherCAT diagnostics, the alarm service, the symbol browser). */
  readonly services: ServiceDirectory;
  /** Every route's options, for front doors that apply the rules of the route they mirror. */
  readonly routes: RouteCatalog;
};

/** The fastify instance a feature registers its routes on (TypeBox type provider). */
export type FeatureApp = Parameters<FastifyPluginAsyncTypebox<FeatureContext>>[0];

/**
 * A feature area: an encapsulated fastify plugin registered once in app.ts with the shared context. It declares
 * its routes synchronously, or returns a promise when it must await something while registering.
 */
export type FeaturePlugin = (app: FeatureApp, context: FeatureContext) => void | Promise<void>;
