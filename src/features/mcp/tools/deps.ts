// What the tool modules are built from: the app's feature context and a logger.
import type { FeatureContext } from '../../../http/feature-context.ts';

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
export function required<T>(service: T | undefined, name: string): T {
  if (service === undefined)
    throw new Error(`The ${name} service is not published; register its routes before MCP.`);
  return service;
}
