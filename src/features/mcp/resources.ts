// The resources: the PLC list and, per permitted PLC, its status, top-level symbols and outstanding alarms, each
// read behind the rules of the route it mirrors. Subscribing to a status or alarms resource sends
// notifications/resources/updated when the PLC's connection state changes or an alarm transition happens.
import {
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  ResourceTemplate,
  type McpServer,
  type RegisteredResource,
  type RegisteredResourceTemplate,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { renderError } from '../../http/error-handler.ts';
import type { FeatureContext } from '../../feature-kit/feature-context.ts';
import type { RouteKey } from '../../http/route-catalog.ts';
import { canAccessPlc } from '../../guards/principal.ts';
import type { PlcTarget } from '../../targets/target.ts';
import { listPlcs, plcStatus } from '../plcs/index.ts';
import { callerOf, type HandlerExtra } from './caller.ts';
import { routeEnabled, type Guarded } from './guarded.ts';
import { decodeUriPart, decodeVariables, parseResourceUri } from './resource-uris.ts';
import type { PartHandle, SessionPart } from './session-server.ts';
import type { Caller } from './tool-kit.ts';
import { alarmService, symbolBrowser } from './tools/deps.ts';
import { targetOf } from './tools/plcs.ts';
import { limitTree } from './tools/symbol-tree.ts';
import { maxBrowseNodes } from './tools/symbols.ts';

export const scheme = 'plc-gateway';
const subscribable = new RegExp(`^${scheme}://plcs/([^/]+)/(status|alarms)$`);

const routeOf = {
  plcs: 'GET /api/plcs',
  status: 'GET /api/plcs/:plcId/status',
  symbols: 'GET /api/plcs/:plcId/symbols',
  alarms: 'GET /api/plcs/:plcId/alarms',
} as const satisfies Record<string, RouteKey>;

/** A refused read as a protocol error that still carries the API's code (resources have no isError). */
export function resourceError(err: unknown): McpError {
  // Already a protocol error (a bad URI): it says what is wrong.
  if (err instanceof McpError) return err;
  const { code, message, status } = renderError(err);
  const rpc = status === 404 ? -32002 : status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new McpError(rpc, `${code}: ${message}`, { code, message });
}

export function resourcesPart(
  context: FeatureContext,
  guarded: Guarded,
  log: { warn(o: object, m: string): void },
): SessionPart {
  const { registry, config } = context;
  const enabled = (key: RouteKey) => routeEnabled(context.routes, config.features, key);
  const alarms = () => alarmService(context);
  const json = (uri: URL, data: unknown): ReadResourceResult => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }],
  });
  const read =
    <T>(key: RouteKey, run: (caller: Caller, target: PlcTarget | null) => T | Promise<T>) =>
    async (uri: URL, variables: Record<string, string | string[]>, extra: HandlerExtra) => {
      const caller = callerOf(extra);
      try {
        return json(uri, await guarded(key, caller, variables.plcId, (target) => run(caller, target)));
      } catch (err) {
        throw resourceError(err);
      }
    };
  /** The permitted PLCs as resources of one kind, for the templates' listings. */
  const listed = (kind: string, extra: HandlerExtra, only?: readonly string[]) => {
    const { principal } = callerOf(extra);
    return {
      resources: registry
        .list()
        .filter((t) => canAccessPlc(principal, t.id) && (only === undefined || only.includes(t.id)))
        .map((t) => ({
          uri: `${scheme}://plcs/${t.id}/${kind}`,
          name: `${t.id} ${kind}`,
          mimeType: 'application/json',
        })),
    };
  };

  return (mcp: McpServer): PartHandle => {
    const fixed = new Map<string, RegisteredResource>();
    const templates: RegisteredResourceTemplate[] = [];
    fixed.set(
      `${scheme}://plcs`,
      mcp.registerResource(
        'plcs',
        `${scheme}://plcs`,
        {
          title: 'PLCs',
          description: 'The PLCs this token may see, as list_plcs answers',
          mimeType: 'application/json',
        },
        (uri, extra) =>
          read(routeOf.plcs, ({ principal }) => ({
            plcs: listPlcs(registry.list(), (id) => canAccessPlc(principal, id)),
          }))(uri, {}, extra),
      ),
    );
    templates.push(
      mcp.registerResource(
        'plc-status',
        new ResourceTemplate(`${scheme}://plcs/{plcId}/status`, { list: (extra) => listed('status', extra) }),
        {
          title: 'PLC status',
          description: 'Connection and ADS state; subscribe for connection changes',
          mimeType: 'application/json',
        },
        read(routeOf.status, (_caller, target) => {
          const plc = targetOf(target);
          return plcStatus(plc, (err) => log.warn({ err, plcId: plc.id }, 'reading the ADS state failed'));
        }),
      ),
    );
    if (enabled(routeOf.symbols)) {
      templates.push(
        mcp.registerResource(
          'plc-symbols',
          new ResourceTemplate(`${scheme}://plcs/{plcId}/symbols`, {
            list: (extra) => listed('symbols', extra),
          }),
          {
            title: 'Top-level symbols',
            description: 'The program’s top-level symbols, children counted',
            mimeType: 'application/json',
          },
          read(routeOf.symbols, async (_caller, target) => {
            const list = await symbolBrowser(context).list(targetOf(target), { flat: false });
            return { ...limitTree(list, 0, maxBrowseNodes), total: list.length };
          }),
        ),
      );
    }
    if (enabled(routeOf.alarms)) {
      templates.push(
        mcp.registerResource(
          'plc-alarms',
          new ResourceTemplate(`${scheme}://plcs/{plcId}/alarms`, {
            list: (extra) => listed('alarms', extra, alarms().plcIds()),
          }),
          {
            title: 'Outstanding alarms',
            description: 'As list_alarms for one PLC; subscribe for transitions',
            mimeType: 'application/json',
          },
          read(routeOf.alarms, (caller, target) => {
            const service = alarms();
            return service.list([service.monitor(targetOf(target).id).plcId], caller.cultures);
          }),
        ),
      );
    }
    // Replaces the SDK's read handler, which answers a string that is not a URI as an internal error and hands
    // the template variables over still encoded (a malformed escape went unnoticed, a well-formed one named no PLC).
    mcp.server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
      const raw = request.params.uri;
      const uri = parseResourceUri(raw);
      const exact = fixed.get(uri.href);
      if (exact !== undefined) return exact.readCallback(uri, extra);
      for (const template of templates) {
        const variables = template.resourceTemplate.uriTemplate.match(uri.href);
        if (variables !== null) return template.readCallback(uri, decodeVariables(raw, variables), extra);
      }
      throw new McpError(ErrorCode.InvalidParams, `Resource ${raw} not found`, { uri: raw });
    });

    const subscriptions = new Map<string, () => void>();
    let closed = false;
    mcp.server.registerCapabilities({ resources: { subscribe: true } });
    mcp.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const { uri } = request.params;
      const match = subscribable.exec(uri);
      if (match === null) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Only ${scheme}://plcs/{plcId}/status and .../alarms can be subscribed.`,
        );
      }
      const [, plcId, kind] = match as unknown as [string, string, 'status' | 'alarms'];
      const caller = callerOf(extra);
      try {
        const off = await guarded(routeOf[kind], caller, decodeUriPart(uri, plcId), (target) => {
          const notify = () => void mcp.server.sendResourceUpdated({ uri }).catch(() => undefined);
          if (kind === 'status') return targetOf(target).onConnectionState(notify);
          return alarms().monitor(targetOf(target).id).onTransitions(notify);
        });
        // The session may have ended while a shared limit store decided.
        if (closed) {
          off();
          return {};
        }
        subscriptions.get(uri)?.();
        subscriptions.set(uri, off);
      } catch (err) {
        throw resourceError(err);
      }
      return {};
    });
    mcp.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      subscriptions.get(request.params.uri)?.();
      subscriptions.delete(request.params.uri);
      return {};
    });
    return {
      busy: () => subscriptions.size > 0,
      close: () => {
        closed = true;
        for (const off of subscriptions.values()) off();
        subscriptions.clear();
      },
    };
  };
}
