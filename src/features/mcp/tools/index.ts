// Every tool the gateway offers, in the order agents see them listed.
import type { Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { deviceTools } from './device.ts';
import { plcTools } from './plcs.ts';
import { symbolTools } from './symbols.ts';
import { variableTools } from './variables.ts';

export function allTools(deps: ToolDeps): Tool[] {
  return [...plcTools(deps), ...variableTools(), ...symbolTools(deps), ...deviceTools()];
}
