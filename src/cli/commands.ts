// The sub-command table: add a command by writing its module and listing it here.
import type { Command } from './command.ts';
import { scenarioCommand } from './scenario-command.ts';
import { serveCommand } from './serve-command.ts';
import { simAdsCommand } from './sim-ads-command.ts';
import { tokenCommand } from './token-command.ts';

export const commands: readonly Command[] = [serveCommand, tokenCommand, scenarioCommand, simAdsCommand];

/** Used when the first argument is an option or there is none: `plc-gateway --config x.json` serves. */
export const defaultCommand: Command = serveCommand;
