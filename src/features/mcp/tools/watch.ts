// watch_variables: samples a few variables at an interval for a bounded time and answers each one's series, for
// agents that cannot hold a stream. Every sample is one batch read through the variables service.
import { isDeepStrictEqual } from 'node:util';
import { Type } from '@sinclair/typebox';
import { renderError } from '../../../http/error-handler.ts';
import type { Sleep } from '../../../feature-kit/feature-context.ts';
import type { PlcTarget, PlcValue } from '../../../targets/target.ts';
import { type ItemError, readVariables } from '../../variables/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { PlcId, strict, SymbolPath } from './inputs.ts';
import { targetOf } from './plcs.ts';

/** The longest interval; the shortest is Mcp.WatchMinIntervalMs. */
export const maxIntervalMs = 10_000;
const defaultIntervalMs = 1000;

export interface WatchSeries {
  typeName: string | null;
  /** One point per change: the first sample, then each sample whose value differs from the one before. */
  points: Array<{ at: string; value: PlcValue }>;
  /** The last error this path's read answered (its points stop there until it reads again). */
  error?: ItemError;
}

export interface WatchResult {
  intervalMs: number;
  /** How many samples were taken. */
  samples: number;
  series: Record<string, WatchSeries>;
  /** Why sampling ended early (the PLC went away, or the call was cancelled). */
  stopped?: ItemError;
}

export interface WatchTiming {
  readonly now: () => number;
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
}

export async function watchVariables(
  target: PlcTarget,
  paths: readonly string[],
  { seconds, intervalMs }: { seconds: number; intervalMs: number },
  { now, sleep, signal }: WatchTiming,
): Promise<WatchResult> {
  const unique = [...new Set(paths)];
  const result: WatchResult = { intervalMs, samples: 0, series: {} };
  for (const path of unique) result.series[path] = { typeName: null, points: [] };
  for (let elapsed = 0; ; elapsed += intervalMs) {
    let read: Awaited<ReturnType<typeof readVariables>>;
    try {
      read = await readVariables(target, unique);
    } catch (err) {
      if (result.samples === 0) throw err;
      const { code, message } = renderError(err);
      result.stopped = { code, message };
      break;
    }
    const at = new Date(now()).toISOString();
    result.samples++;
    for (const path of unique) record(result.series[path]!, read.values[path], at);
    if (elapsed + intervalMs > seconds * 1000) break;
    try {
      await sleep(intervalMs, signal);
    } catch {
      result.stopped = {
        code: 'CANCELLED',
        message: 'The call was cancelled; the samples so far are given.',
      };
      break;
    }
  }
  return result;
}

function record(
  series: WatchSeries,
  entry: Awaited<ReturnType<typeof readVariables>>['values'][string] | undefined,
  at: string,
): void {
  if (entry === undefined) return;
  if ('error' in entry) {
    series.error = entry.error;
    return;
  }
  series.typeName = entry.typeName;
  const last = series.points.at(-1);
  if (last === undefined || !isDeepStrictEqual(last.value, entry.value))
    series.points.push({ at, value: entry.value });
}

export function watchTools({ context }: ToolDeps): Tool[] {
  const {
    WatchMaxSeconds: maxSeconds,
    WatchMaxSymbols: maxSymbols,
    WatchMinIntervalMs: minIntervalMs,
    MaxConcurrentToolsPerUser: perUser,
  } = context.config.settings.Mcp;
  const fallbackMs = Math.max(defaultIntervalMs, minIntervalMs);
  return [
    defineTool({
      name: 'watch_variables',
      title: 'Watch variables',
      description:
        `Samples up to ${maxSymbols} variables every intervalMs for seconds (1-${maxSeconds}) and answers each one's ` +
        'series, a point per change: use it to see values move (agents cannot hold a stream). The call lasts that ' +
        `long; a user runs at most ${perUser} such calls at once (CONCURRENCY_LIMIT beyond).`,
      input: Type.Object(
        {
          plcId: PlcId,
          paths: Type.Array(SymbolPath, {
            minItems: 1,
            maxItems: maxSymbols,
            description: `1-${maxSymbols} paths`,
          }),
          seconds: Type.Integer({
            minimum: 1,
            maximum: maxSeconds,
            description: `How long to sample, 1-${maxSeconds}`,
          }),
          intervalMs: Type.Optional(
            Type.Integer({
              minimum: minIntervalMs,
              maximum: maxIntervalMs,
              default: fallbackMs,
              description: `Time between samples, ${minIntervalMs}-${maxIntervalMs} ms (default ${fallbackMs})`,
            }),
          ),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/variables',
      readOnly: true,
      longRunning: true,
      run: ({ paths, seconds, intervalMs }, { target, signal }) =>
        watchVariables(
          targetOf(target),
          paths,
          { seconds, intervalMs: intervalMs ?? fallbackMs },
          { now: context.now, sleep: context.sleep, signal },
        ),
    }),
  ];
}
