// What the tool modules are built from: the app's feature context and a logger.
import type { FeatureContext } from '../../../feature-kit/feature-context.ts';
import { type AlarmService, alarmServiceKey } from '../../alarms/index.ts';
import { type SymbolBrowser, symbolBrowserKey } from '../../symbols/index.ts';
import { historyQueriesKey, type HistoryQueries } from '../../history/index.ts';

export interface ToolLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ToolDeps {
  readonly context: FeatureContext;
  readonly log: ToolLog;
}

/** A service another feature published; its absence is a wiring error found at start-up. */
function required<T>(service: T | undefined, name: string): T {
  if (service === undefined)
    throw new Error(`The ${name} service is not published; register its routes before MCP.`);
  return service;
}

// Looked up when a tool, resource or prompt runs rather than when MCP is built: features register in any order.

/** The alarm service the alarm routes published. */
export function alarmService(context: FeatureContext): AlarmService {
  return required(context.services.find(alarmServiceKey), 'alarm');
}

/** The symbol browser the symbol routes published. */
export function symbolBrowser(context: FeatureContext): SymbolBrowser {
  return required(context.services.find(symbolBrowserKey), 'symbol browser');
}

/** The history queries the history routes published (flag History). */
export function historyQueries(context: FeatureContext): HistoryQueries {
  return required(context.services.find(historyQueriesKey), 'history');
}
