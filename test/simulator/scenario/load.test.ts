// Loading scenario folders: file-level failures, YAML syntax errors with positions, the examples, the CLI
// command and the simulated driver turning problems into start-up errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/main.ts';
import { ConfigError } from '../../../src/config/schema.ts';
import {
  formatProblem,
  loadScenario,
  ScenarioError,
  validateScenarioDir,
} from '../../../src/simulator/scenario/index.ts';
import { createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { testConfig } from '../../helpers/config.ts';
import { capture } from '../../cli/capture.ts';
import { scenarioDoc, writeScenario } from './helpers.ts';

const examples = join(import.meta.dirname, '../../../examples/scenarios');

async function messages(dir: string): Promise<string[]> {
  return (await validateScenarioDir(dir)).map(formatProblem);
}

describe('loadScenario', () => {
  test('returns the typed scenario with defaults', async () => {
    const s = await loadScenario(writeScenario(scenarioDoc()));
    assert.equal(s.scanMs, 100);
    assert.equal(s.axes[0]?.start.enabled, true);
  });

  test('a missing directory', async () => {
    assert.deepEqual(await messages('/nonexistent/scenario'), [
      'scenario directory /nonexistent/scenario does not exist',
    ]);
  });

  test('a directory without machine.yaml', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    assert.deepEqual(await messages(dir), [`scenario directory ${dir} has no readable machine.yaml`]);
  });

  test('an empty file', async () => {
    assert.deepEqual(await messages(writeScenario('  \n\n')), ['machine.yaml is empty']);
  });

  test('YAML that is not a mapping', async () => {
    assert.deepEqual(await messages(writeScenario('- just\n- a list\n')), [
      'machine.yaml must be a YAML mapping of scenario keys',
    ]);
    assert.deepEqual(await messages(writeScenario('plain text')), [
      'machine.yaml must be a YAML mapping of scenario keys',
    ]);
  });

  test('a YAML syntax error carries line and column', async () => {
    const list = await messages(writeScenario('contract: gvl-hmi/1\nroot: GVL_HMI\naxes: [\n  {id: a\n'));
    assert.ok(list.length >= 1);
    assert.match(list[0] ?? '', /^machine\.yaml is not valid YAML: line \d+, column \d+: /);
  });

  test('a duplicate key is a YAML error', async () => {
    assert.deepEqual(await messages(writeScenario('contract: gvl-hmi/1\nroot: A\nroot: B\n')), [
      'machine.yaml is not valid YAML: line 3, column 1: Map keys must be unique',
    ]);
  });

  test('ScenarioError carries the whole list', async () => {
    const dir = writeScenario(scenarioDoc({ scanMs: 1, maxAxes: 0 }));
    await assert.rejects(loadScenario(dir), (err: unknown) => {
      assert.ok(err instanceof ScenarioError);
      assert.deepEqual(err.problems.map(formatProblem), ['/scanMs: must be >= 10', '/maxAxes: must be >= 1']);
      assert.match(err.message, /machine\.yaml:\n {2}- \/scanMs: must be >= 10\n/);
      return true;
    });
  });

  test('the examples are valid', async () => {
    for (const name of ['small', 'line16']) assert.deepEqual(await messages(join(examples, name)), [], name);
  });
});

describe('plc-gateway scenario validate', () => {
  test('prints OK and exits 0 for a valid scenario', async () => {
    const c = capture({ cwd: examples });
    assert.equal(await runCli(['scenario', 'validate', 'line16'], c.io), 0);
    assert.equal(c.out(), 'OK\n');
  });

  test('prints every problem and exits 1', async () => {
    const dir = writeScenario(scenarioDoc({ scanMs: 2000, colour: 'red' }));
    const c = capture({ cwd: tmpdir() });
    assert.equal(await runCli(['scenario', 'validate', dir], c.io), 1);
    assert.equal(c.out(), '/colour: is not a known key\n/scanMs: must be <= 1000\n');
  });

  test('hostile YAML is a listed problem, never a crash: alias bomb, deep nesting, huge file, FIFO', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [prev, next] of ['ab', 'bc', 'cd', 'de', 'ef', 'fg']) {
      levels.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const bomb = writeScenario(`contract: gvl-hmi/1\nroot: G\n${levels.join('\n')}\n`);
    const c = capture({ cwd: tmpdir() });
    assert.equal(await runCli(['scenario', 'validate', bomb], c.io), 1);
    assert.equal(c.err(), '');
    assert.equal(
      c.out(),
      'machine.yaml cannot be expanded: Excessive alias count indicates a resource exhaustion attack\n',
    );
    await assert.rejects(loadScenario(bomb), ScenarioError);

    const deep = await messages(
      writeScenario(`contract: gvl-hmi/1\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n`),
    );
    assert.equal(deep.length, 11);
    assert.match(deep[10] ?? '', /^machine\.yaml: \d+ more YAML errors$/);

    const huge = writeScenario(`contract: gvl-hmi/1\nroot: G\n#${'x'.repeat(5 * 1024 * 1024)}\n`);
    assert.deepEqual(await messages(huge), ['machine.yaml is larger than 4194304 bytes']);

    const fifoDir = mkdtempSync(join(tmpdir(), 'scenario-'));
    execFileSync('mkfifo', [join(fifoDir, 'machine.yaml')]);
    assert.deepEqual(await messages(fifoDir), ['machine.yaml is not a regular file']);
  });

  test('a missing DIR is a usage error', async () => {
    const c = capture({ cwd: tmpdir() });
    assert.equal(await runCli(['scenario', 'validate'], c.io), 2);
    assert.match(c.err(), /missing scenario directory/);
  });
});

describe('simulated target with a Scenario', () => {
  function settingsFor(dir: string) {
    const config = testConfig({ PlcTargets: { sim: { Mode: 'Simulated', Scenario: dir } } }, tmpdir());
    const settings = config.settings.PlcTargets.sim;
    assert.ok(settings);
    return { config, settings };
  }

  test('a bad scenario fails start-up with each problem prefixed by its settings path', async () => {
    const bad = scenarioDoc({
      axes: [0, 1, 2].map((i) => ({
        id: `cell.a${i}`,
        limits: { min: 0, max: 1, vmax: i === 2 ? 0 : 1, amax: 1 },
        start: { position: 0 },
      })),
    });
    const { config, settings } = settingsFor(writeScenario(bad));
    await assert.rejects(createSimulatedTarget('sim', settings, { config }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems, ['PlcTargets.sim.Scenario: /axes/2/limits/vmax: must be > 0']);
      return true;
    });
  });

  test('a missing scenario folder fails start-up', async () => {
    const { config, settings } = settingsFor('no-such-folder');
    await assert.rejects(createSimulatedTarget('sim', settings, { config }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(
        err.problems[0] ?? '',
        /^PlcTargets\.sim\.Scenario: scenario directory .*no-such-folder does not exist$/,
      );
      return true;
    });
  });

  test('a good scenario sets the simulation, Stopped at load', async () => {
    const { config, settings } = settingsFor(writeScenario(scenarioDoc()));
    const target = await createSimulatedTarget('sim', settings, { config });
    try {
      assert.deepEqual(target.simulation?.state(), {
        state: 'Stopped',
        cycleCount: 0,
        elapsedMs: 0,
        scanMs: 100,
        error: null,
      });
    } finally {
      await target.close();
    }
  });
});
