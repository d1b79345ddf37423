// What a tool is, and how every call runs: the admission checks of the route the tool mirrors (flag, policy,
// PLC, plc_access, route limit, in the API's order), then its arguments, then the feature service, with the
// route's audit record. Every failure is a tool result with isError and the API's error code.
import type { Static, TObject } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { CallToolResult, Tool as ToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import type { AuditTrail } from '../../audit/trail.ts';
import type { Config } from '../../config/schema.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { Admit } from '../../guards/admission.ts';
import type { Principal } from '../../guards/principal.ts';
import type { AuditNote } from '../../http/audit-hooks.ts';
import { renderError } from '../../http/error-handler.ts';
import type { RouteCatalog, RouteKey } from '../../http/route-catalog.ts';
import type { PlcTarget } from '../../targets/target.ts';
import type { ToolSlots } from './tool-slots.ts';

/** The caller of one MCP request, as the /mcp route verified it. */
export interface Caller {
  readonly principal: Principal;
  /** Accept-Language of the request, for alarm texts. */
  readonly cultures: readonly string[];
  readonly signal: AbortSignal;
}

/** What a tool's body is given besides its arguments. */
export interface ToolCall extends Caller {
  /** The PLC the mirrored route's rule resolved; null for routes that are not per PLC. */
  readonly target: PlcTarget | null;
  /** Adds to the call's audit record (old and new values), as a route handler does with noteAudit. */
  readonly note: (note: AuditNote) => void;
}

export interface ToolSpec<I extends TObject> {
  readonly name: string;
  readonly title: string;
  /** One or two sentences: what it does and its limits. */
  readonly description: string;
  readonly input: I;
  /** The route whose rules the tool applies; also what decides whether the tool is listed. */
  readonly mirrors: RouteKey;
  /** For a tool that mirrors one of two routes depending on its arguments (one PLC or the fleet). */
  readonly mirrorsFor?: (args: Static<I>) => RouteKey;
  /** The audit record's target when the mirrored route is audited. */
  readonly auditTarget?: (args: Static<I>) => string;
  /** Changes nothing on the PLC (the readOnlyHint agents show their users). */
  readonly readOnly: boolean;
  /** Keeps reading the PLC for a while (seconds): each call holds one of the places ToolSlots bounds. */
  readonly longRunning?: boolean;
  run(args: Static<I>, call: ToolCall): Promise<object> | object;
}

/** A tool with its types erased, as the runner holds it. */
export interface Tool {
  readonly spec: ToolSpec<TObject>;
  readonly check: TypeCheck<TObject>;
}

export function defineTool<I extends TObject>(spec: ToolSpec<I>): Tool {
  return { spec: spec as unknown as ToolSpec<TObject>, check: TypeCompiler.Compile(spec.input) };
}

export interface ToolRunnerDeps {
  readonly config: Config;
  readonly admit: Admit;
  readonly routes: RouteCatalog;
  readonly audit: AuditTrail;
  /** The places long-running tools take while they run. */
  readonly slots: ToolSlots;
  readonly log: { error(fields: object, message: string): void; info(fields: object, message: string): void };
}

/** Lists and calls the tools; one per app, shared by every session. */
export class ToolRunner {
  readonly #deps: ToolRunnerDeps;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #listed: ToolDefinition[];

  constructor(tools: readonly Tool[], deps: ToolRunnerDeps) {
    this.#deps = deps;
    this.#tools = new Map(tools.map((t) => [t.spec.name, t]));
    // Resolved now, so a tool naming a route that does not exist fails start-up, not its first call.
    const enabled = tools.filter(({ spec }) => {
      const feature = deps.routes.options(spec.mirrors).feature;
      return feature === undefined || deps.config.features[feature];
    });
    // The same list for every token: clients cache it, and a call the token may not make is refused by name.
    this.#listed = enabled.map(({ spec }) => ({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      annotations: { title: spec.title, readOnlyHint: spec.readOnly, openWorldHint: false },
    }));
  }

  list(): ToolDefinition[] {
    return this.#listed;
  }

  async call(name: string, args: unknown, caller: Caller): Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (tool === undefined || !this.#listed.some((t) => t.name === name)) {
      return toolError(
        'NOT_FOUND',
        `No tool is named '${name}'; list the tools to see what this gateway offers.`,
      );
    }
    const { spec } = tool;
    const given: Record<string, unknown> =
      typeof args === 'object' && args !== null && !Array.isArray(args) ? { ...args } : {};
    const key = spec.mirrorsFor && tool.check.Check(given) ? spec.mirrorsFor(given) : spec.mirrors;
    const rule = this.#deps.routes.options(key);
    let note: AuditNote = {};
    let failure: { code: string; message: string } | undefined;
    let target: PlcTarget | null = null;
    try {
      const admitted = this.#deps.admit(rule, {
        principal: caller.principal,
        plcId: given.plcId,
        user: caller.principal.sub,
      });
      target = admitted.target;
      await admitted.spent;
      checkArguments(tool, given);
      // Taken last, so a call refused for any other reason holds no place.
      const release = spec.longRunning ? this.#deps.slots.take(caller.principal.sub, name) : undefined;
      let data: object;
      try {
        data = await spec.run(given, {
          ...caller,
          target,
          note: (more) => void (note = { ...note, ...more }),
        });
      } finally {
        release?.();
      }
      failure = note.error;
      return {
        content: [{ type: 'text', text: JSON.stringify(data) }],
        structuredContent: data as Record<string, unknown>,
      };
    } catch (err) {
      const { code, message, status } = renderError(err);
      if (status >= 500 && !isAppError(err)) this.#deps.log.error({ err, tool: name }, 'MCP tool failed');
      failure = { code, message };
      return toolError(code, message);
    } finally {
      this.#deps.log.info(
        { tool: name, sub: caller.principal.sub, plcId: target?.id, result: failure?.code ?? 'ok' },
        'MCP tool call',
      );
      // As at the HTTP edge: every authenticated attempt is recorded, except one the rate limit refused.
      if (rule.audit !== undefined && failure?.code !== 'RATE_LIMITED') {
        const plcId = target?.id ?? (typeof given.plcId === 'string' ? given.plcId : null);
        await this.#deps.audit.record({
          sub: caller.principal.sub,
          plcId: note.plcId !== undefined ? note.plcId : plcId,
          action: rule.audit.action,
          target: note.target ?? spec.auditTarget?.(given) ?? '',
          ...(failure ? { error: failure } : {}),
          ...('oldValue' in note ? { oldValue: note.oldValue } : {}),
          ...('newValue' in note ? { newValue: note.newValue } : {}),
        });
      }
    }
  }
}

/** A refusal as agents read it: the API's error body, and isError so it is not taken for data. */
export function toolError(code: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }], isError: true };
}

function checkArguments(tool: Tool, args: Record<string, unknown>): void {
  if (tool.check.Check(args)) return;
  const first = tool.check.Errors(args).First();
  const where = first?.path ? first.path.slice(1).replaceAll('/', '.') : 'arguments';
  throw new AppError('VALIDATION_ERROR', `${where || 'arguments'}: ${first?.message ?? 'invalid'}.`);
}
