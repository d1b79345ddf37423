// What the OpenAPI document says of each operation beyond its own schema, derived from the route's declared rules
// (token, policy, plc param, fleet, limits, feature flag, body, stream) the way the guards apply them, so the
// document lists every status an operation can answer without each route repeating it; and its operationId.
import type { FastifyContextConfig } from 'fastify';
import { ErrorEnvelope } from './envelope.ts';

/** The route rules the statuses follow from. */
export interface OperationRules {
  /** Upper case; a multi-method route lists them all. */
  readonly methods: readonly string[];
  readonly secured: boolean;
  readonly hasParams: boolean;
  readonly config: FastifyContextConfig;
}

/** Status -> the codes (or, for answers without a code of their own, a sentence) an operation may answer with. */
type Reasons = Map<number, string[]>;

/** `why`: catalog codes, or a sentence for an answer without a code of its own. */
function add(reasons: Reasons, status: number, ...why: string[]): void {
  const list = reasons.get(status) ?? [];
  for (const reason of why) if (!list.includes(reason)) list.push(reason);
  reasons.set(status, list);
}

const withBody = new Set(['POST', 'PUT', 'PATCH']);

/** The error statuses an operation can answer, each with the reasons, in status order. */
export function errorStatuses({ methods, secured, hasParams, config }: OperationRules): Reasons {
  const reasons: Reasons = new Map();
  const plcScoped = config.plcScoped !== undefined && config.plcScoped !== false;
  const stream = config.eventStream === true || config.websocket === true;
  add(reasons, 400, 'VALIDATION_ERROR');
  if (secured) add(reasons, 401, 'UNAUTHORIZED');
  if (config.policy !== undefined) add(reasons, 403, 'FORBIDDEN');
  if (plcScoped || config.fleet === true) add(reasons, 403, 'PLC_ACCESS_DENIED');
  if (plcScoped) add(reasons, 404, 'PLC_NOT_FOUND');
  else if (hasParams) add(reasons, 404, 'the named item does not exist');
  if (config.feature === 'Simulation' && methods.some((m) => m !== 'GET'))
    add(reasons, 409, 'SIMULATION_CONFLICT');
  if (methods.some((m) => withBody.has(m))) {
    add(reasons, 413, 'PAYLOAD_TOO_LARGE');
    add(reasons, 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  // Every authenticated request spends the per-user global limit.
  if (secured || config.limit !== undefined) add(reasons, 429, 'RATE_LIMITED');
  if (stream) add(reasons, 429, 'CONNECTION_LIMIT');
  add(reasons, 500, 'INTERNAL_ERROR');
  if (config.feature !== undefined) add(reasons, 501, 'FEATURE_DISABLED');
  if (plcScoped) {
    add(reasons, 502, 'ADS_ERROR');
    add(reasons, 503, 'PLC_UNAVAILABLE');
    add(reasons, 504, 'ADS_TIMEOUT');
  }
  // In cluster mode limits are counted in Redis; without it they cannot be.
  if (secured) add(reasons, 503, 'CLUSTER_UNAVAILABLE');
  return new Map([...reasons].sort(([a], [b]) => a - b));
}

const errorCode = /^[A-Z_]+$/;

/** Response entries (the error envelope) for the statuses a route's own schema leaves out. */
export function errorResponses(rules: OperationRules, declared: Readonly<Record<string, unknown>>): object {
  const responses: Record<string, unknown> = {};
  for (const [status, why] of errorStatuses(rules)) {
    if (Object.hasOwn(declared, String(status))) continue;
    const codes = why.filter((reason) => errorCode.test(reason));
    const notes = why.filter((reason) => !errorCode.test(reason));
    const description = [
      'Error envelope',
      ...(codes.length > 0 ? [`error.code: ${codes.join(', ')}`] : []),
      ...notes,
    ].join('; ');
    responses[status] = { ...ErrorEnvelope, description };
  }
  return responses;
}

const paramSegment = /^(?::(\w+)|\{(\w+)\}|\*)$/;

function paramOf(segment: string | undefined): string | undefined {
  const match = segment === undefined ? null : paramSegment.exec(segment);
  if (match === null) return undefined;
  return match[1] ?? match[2] ?? 'path';
}

/**
 * The operationId of a method and URL template: the method, then the path's words without `api`, `plcs/{plcId}`
 * read as `plc` (one PLC), other parameters left out except a last one (`…ByPath`); camelCase. Derived from the
 * route alone, so it stays the same as long as the route does.
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.split('/').filter((s) => s.length > 0);
  const words: string[] = [method.toLowerCase()];
  segments.forEach((segment, i) => {
    const param = paramOf(segment);
    if (param !== undefined) {
      if (i === segments.length - 1) words.push('by', ...wordsOf(param));
      return;
    }
    if (i === 0 && segment === 'api') return;
    if (segment === 'plcs' && paramOf(segments[i + 1]) === 'plcId') words.push('plc');
    else words.push(...wordsOf(segment));
  });
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

/** `enum-members` -> enum, members; `plcId` -> plc, id. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}
