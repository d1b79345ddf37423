// Audit at the HTTP edge: a route declares `config: { audit: { action, target } }` and every request to it that
// passed authentication is recorded once, whatever its outcome, except 401 (no caller) and 429 (not attempted);
// refusals (4xx, 501) are kept apart from the changes.
// Handlers add what only they know (old and new values, a refined target) with noteAudit().
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditAction, AuditError } from '../audit/store.ts';
import { isRefusalStatus, type AuditTrail } from '../audit/trail.ts';
import { renderError } from './error-handler.ts';

/** How a route is audited: the action, and the target as the request names it. */
export interface AuditRoute {
  readonly action: AuditAction;
  target(request: FastifyRequest): string;
}

/** What a handler adds to its request's record. */
export interface AuditNote {
  target?: string;
  /** For routes that are not per-PLC but act on one (e.g. a stream connection of a PLC). */
  plcId?: string | null;
  oldValue?: unknown;
  newValue?: unknown;
  /** An outcome worse than the status tells (e.g. a batch answered 200 with failed items). */
  error?: AuditError;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Record every authenticated request to this route in the audit trail. */
    audit?: AuditRoute;
  }

  interface FastifyRequest {
    auditNote: AuditNote | null;
    /** The error the request is answered with, as the caller sees it. */
    auditFailure: AuditError | null;
  }
}

/** Adds to the request's audit record; later notes win field by field. */
export function noteAudit(request: FastifyRequest, note: AuditNote): void {
  request.auditNote = { ...request.auditNote, ...note };
}

/** Route options' `audit` from an action and a target taken from the path parameters. */
export function auditParam(action: AuditAction, param: string): AuditRoute {
  return {
    action,
    target: (request) => {
      const value = (request.params as Record<string, unknown> | undefined)?.[param];
      return typeof value === 'string' ? value : '';
    },
  };
}

/** Installs the hooks; call before the routes are registered. */
export function installAudit(app: FastifyInstance, trail: AuditTrail): void {
  app.decorateRequest('auditNote', null);
  app.decorateRequest('auditFailure', null);

  app.addHook('onError', (request, _reply, error, done) => {
    const { code, message } = renderError(error);
    request.auditFailure = { code, message };
    done();
  });

  // onSend runs before the answer leaves, so a record exists by the time the caller sees the outcome. Only audited
  // routes carry the hook: reads pay nothing for it.
  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const route = request.routeOptions.config.audit;
    const principal = request.principal;
    if (route === undefined || principal === null) return payload;
    const status = reply.statusCode;
    if (status === 401 || status === 429) return payload;
    const note = request.auditNote ?? {};
    const failure =
      status >= 400
        ? (request.auditFailure ?? { code: `HTTP_${status}`, message: 'The request failed.' })
        : note.error;
    const plcId = (request.params as { plcId?: unknown } | undefined)?.plcId;
    await trail.record({
      sub: principal.sub,
      plcId: note.plcId !== undefined ? note.plcId : typeof plcId === 'string' ? plcId : null,
      action: route.action,
      target: note.target ?? safeTarget(route, request),
      ...(failure ? { error: failure } : {}),
      ...('oldValue' in note ? { oldValue: note.oldValue } : {}),
      ...('newValue' in note ? { newValue: note.newValue } : {}),
      // By the answer, not the code: a batch answered 200 with failed items did change the PLC.
      refused: isRefusalStatus(status),
    });
    return payload;
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.audit === undefined) return;
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, record];
  });
}

// A request refused by the guards may lack what the target function expects (no parsed params or query).
function safeTarget(route: AuditRoute, request: FastifyRequest): string {
  try {
    return route.target(request);
  } catch {
    return '';
  }
}
