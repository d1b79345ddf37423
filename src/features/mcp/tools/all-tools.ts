// Every tool the gateway offers, in the order agents see them listed.
import type { Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { alarmTools } from './alarms.ts';
import { alarmKpiTools } from './alarm-kpis.ts';
import { deviceTools } from './device.ts';
import { etherCatTools } from './ethercat.ts';
import { historyTools } from './history.ts';
import { methodTools } from './methods.ts';
import { simulationTools } from './simulation.ts';
import { watchTools } from './watch.ts';
import { plcTools } from './plcs.ts';
import { symbolTools } from './symbols.ts';
import { variableTools } from './variables.ts';

export function allTools(deps: ToolDeps): Tool[] {
  return [
    ...plcTools(deps),
    ...variableTools(),
    ...watchTools(deps),
    ...symbolTools(deps),
    ...deviceTools(),
    ...alarmTools(deps),
    ...alarmKpiTools(deps),
    ...historyTools(deps),
    ...etherCatTools(deps),
    ...methodTools(deps),
    ...simulationTools(deps),
  ];
}
