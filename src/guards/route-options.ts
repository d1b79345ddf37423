// The route options the guards read (`config: { feature, policy, plcScoped, limit, fleet, authenticate, optionalToken,
// websocket, eventStream }`) and the request properties they fill in, declared on fastify's types so every route is checked by
// the compiler.
import type { FeatureName } from '../config/schema.ts';
import type { PlcTarget } from '../targets/target.ts';
import type { PolicyName } from './policies.ts';
import type { Principal } from './principal.ts';
import type { RouteLimitName } from './rate-limit/rate-limits.ts';

/** A `plcScoped` route that serves only some configured PLCs (alarm routes: the monitored ones). */
export interface PlcScope {
  serves(plcId: string): boolean;
  /** The 404 PLC_NOT_FOUND message for a configured PLC the route does not serve. */
  notServed(plcId: string): string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Feature flag gating the route: when off the route answers 501 FEATURE_DISABLED and leaves the OpenAPI document. */
    feature?: FeatureName;
    /** Policy the caller's token must satisfy (403 FORBIDDEN otherwise). Every `/api` route needs a token anyway. */
    policy?: PolicyName;
    /**
     * The route has a `plcId` path parameter: unknown (or, given a scope, not served) -> 404 PLC_NOT_FOUND, before
     * outside `plc_access` -> 403, so a route never tells a caller more about a PLC it does not serve.
     */
    plcScoped?: boolean | PlcScope;
    /** Named route limit(s) spent after the PLC checks (429 RATE_LIMITED with Retry-After). */
    limit?: RouteLimitName | readonly RouteLimitName[];
    /** The route needs a verified token although it names no policy (its operations check their own). */
    authenticate?: boolean;
    /**
     * An anonymous route that reads a bearer token when one is sent: a valid one fills `principal` (the route may
     * show its caller more), a missing or bad one leaves the caller anonymous instead of answering 401.
     */
    optionalToken?: boolean;
    /** A WebSocket route: the token may come in the `access_token` query parameter. */
    websocket?: boolean;
    /**
     * An event-stream (SSE) route, set for every route declaring `sse`: the token may come in `access_token`, since
     * a browser's EventSource cannot send an Authorization header.
     */
    eventStream?: boolean;
    /**
     * A fleet route (answers for every PLC the token permits): a token permitting no configured PLC gets 403
     * PLC_ACCESS_DENIED instead of an empty answer.
     */
    fleet?: boolean;
  }

  interface FastifyRequest {
    /** The verified caller; null on anonymous routes. */
    principal: Principal | null;
    /** The PLC a `plcScoped` route names, after the access checks; null elsewhere. */
    plcTarget: PlcTarget | null;
    /**
     * Verifies a fresh token for the stream this request opened (same sub, no wider rights, the route's checks
     * again); it becomes the request's principal. Throws UNAUTHORIZED, FORBIDDEN or PLC_ACCESS_DENIED.
     */
    reauthenticate(token: string): Promise<Principal>;
  }
}
