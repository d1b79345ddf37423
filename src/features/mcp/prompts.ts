// The diagnose_plc prompt: one PLC's status, outstanding alarms, recent alarm journal and device state gathered
// as context for the agent, each part read behind the rules of its route; a part the token may not read is
// named with its error code instead of left out silently.
import {
  McpError,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { renderError } from '../../http/error-handler.ts';
import type { FeatureContext } from '../../feature-kit/feature-context.ts';
import type { RouteKey } from '../../http/route-catalog.ts';
import type { PlcTarget } from '../../targets/target.ts';
import { deviceState } from '../device/index.ts';
import { plcStatus } from '../plcs/index.ts';
import { callerOf } from './caller.ts';
import { routeEnabled, type Guarded } from './guarded.ts';
import { resourceError } from './resources.ts';
import type { PartHandle, SessionPart } from './session-server.ts';
import type { Caller } from './tool-kit.ts';
import { alarmService } from './tools/deps.ts';
import { targetOf } from './tools/plcs.ts';

/** Journal entries the prompt carries: the most recent ones. */
export const recentTransitions = 20;

const prompt = {
  name: 'diagnose_plc',
  title: 'Diagnose a PLC',
  description:
    'Gathers one PLC’s status, outstanding alarms, recent alarm history and device state, and asks for a diagnosis.',
  arguments: [{ name: 'plcId', description: 'The PLC alias, as list_plcs gives it', required: true }],
};

type Part = { route: RouteKey; read: (target: PlcTarget, caller: Caller) => unknown };

export function promptsPart(context: FeatureContext, guarded: Guarded): SessionPart {
  const alarms = () => alarmService(context);
  const parts: Record<string, Part> = {
    alarms: {
      route: 'GET /api/plcs/:plcId/alarms',
      read: (target, caller) => alarms().list([alarms().monitor(target.id).plcId], caller.cultures),
    },
    recentAlarmHistory: {
      route: 'GET /api/plcs/:plcId/alarms/history',
      read: (target, caller) => {
        const last = alarms().monitor(target.id).journal.newest();
        return alarms().history(
          target.id,
          Math.max(0, last - recentTransitions),
          recentTransitions,
          caller.cultures,
        ).items;
      },
    },
    deviceInfo: { route: 'GET /api/plcs/:plcId/device/info', read: (target) => target.deviceInfo() },
    deviceState: { route: 'GET /api/plcs/:plcId/device/state', read: (target) => deviceState(target) },
  };

  const gather = async (plcId: string, caller: Caller) => {
    // The status decides: a PLC the token may not see (or that does not exist) is an error, not a prompt.
    let target: PlcTarget;
    let status: unknown;
    try {
      target = await guarded('GET /api/plcs/:plcId/status', caller, plcId, (t) => targetOf(t));
      status = await plcStatus(target, () => undefined);
    } catch (err) {
      throw resourceError(err);
    }
    const gathered: Record<string, unknown> = { status };
    for (const [name, part] of Object.entries(parts)) {
      if (!routeEnabled(context.routes, context.config.features, part.route)) {
        gathered[name] = { unavailable: { code: 'FEATURE_DISABLED', message: 'This area is switched off.' } };
        continue;
      }
      try {
        gathered[name] = await guarded(part.route, caller, plcId, (t) => part.read(targetOf(t), caller));
      } catch (err) {
        const { code, message } = renderError(err);
        gathered[name] = { unavailable: { code, message } };
      }
    }
    return gathered;
  };

  return (mcp: McpServer): PartHandle => {
    mcp.server.registerCapabilities({ prompts: { listChanged: false } });
    mcp.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [prompt] }));
    mcp.server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      if (request.params.name !== prompt.name) {
        throw new McpError(ErrorCode.InvalidParams, `No prompt is named '${request.params.name}'.`);
      }
      const plcId = request.params.arguments?.plcId;
      if (typeof plcId !== 'string' || plcId === '') {
        throw new McpError(ErrorCode.InvalidParams, 'diagnose_plc needs the plcId argument.');
      }
      const gathered = await gather(plcId, callerOf(extra));
      const text =
        `Diagnose the PLC '${plcId}' behind plc-gateway. Below is its current status, its outstanding alarms, ` +
        `the most recent alarm transitions (oldest first) and its device state, as JSON. Say what is wrong, ` +
        `since when and the likely cause; name the alarm codes and symbols you rely on, and what to check next ` +
        `(read_variable, browse_symbols, watch_variables help). Do not write anything without asking.\n\n` +
        JSON.stringify(gathered, null, 2);
      return {
        description: `Diagnosis context for ${plcId}`,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
      };
    });
    return { busy: () => false, close: () => undefined };
  };
}
