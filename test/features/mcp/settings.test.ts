// The MCP bounds are checked at start-up: each setting's edge loads, one step past it is a config problem naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configFromDocument } from '../../../src/config/load.ts';
import { minimalSettings, problemsOf } from '../../config/helpers.ts';

const load = (mcp: Record<string, unknown>) =>
  configFromDocument({ ...minimalSettings, Mcp: mcp }, '.', { NODE_ENV: 'development' });

test('defaults: 3 long-running calls per user, 30 in all, a 100 ms sampling floor, 1 MiB bodies', () => {
  const { Mcp } = load({}).settings;
  assert.deepEqual(
    [Mcp.MaxConcurrentToolsPerUser, Mcp.MaxConcurrentTools, Mcp.WatchMinIntervalMs, Mcp.MaxBodyBytes],
    [3, 30, 100, 1024 * 1024],
  );
});

test('each bound at its edge loads; past it the problem names the setting', () => {
  const edges: Array<[string, number, number]> = [
    ['MaxConcurrentToolsPerUser', 1, 0],
    ['MaxConcurrentTools', 1, 0],
    ['MaxBodyBytes', 1, 0],
    ['WatchMinIntervalMs', 1, 0],
    ['WatchMinIntervalMs', 10_000, 10_001],
  ];
  for (const [name, ok, bad] of edges) {
    assert.equal((load({ [name]: ok }).settings.Mcp as Record<string, unknown>)[name], ok);
    const problems = problemsOf(() => load({ [name]: bad }));
    assert.equal(problems.length, 1, problems.join('; '));
    assert.match(problems[0]!, new RegExp(`^Mcp\\.${name}: `));
  }
});
