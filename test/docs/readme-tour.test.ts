// The README's five-minute tour runs as written: `plc-gateway serve --config examples/appsettings.json` in its
// own process on a free port, then every curl of the tour through bash, with the port substituted and TOKEN set
// to the admin token the gateway prints. Each answers the status documented on the line after it
// (`# -> 200`); a stream (`curl -N`) is read until the text after `then` arrives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliProcess } from '../helpers/cluster-plant.ts';
import { read, section, shellBlocks } from './markdown.ts';

const root = resolve(import.meta.dirname, '../..');
const documentedBase = 'http://127.0.0.1:5000';

export interface TourStep {
  /** The command as written, continuation lines joined. */
  readonly command: string;
  /** Statuses the README allows. */
  readonly statuses: readonly number[];
  /** Text the output must contain (a stream is read until it arrives). */
  readonly then: string | undefined;
}

/** The curl commands of a text's shell blocks with their documented answers; throws on a curl without one. */
export function tourSteps(text: string): TourStep[] {
  const steps: TourStep[] = [];
  for (const block of shellBlocks(text)) {
    const lines = block.replace(/\s*\\\n\s*/g, ' ').split('\n');
    lines.forEach((line, i) => {
      if (!line.startsWith('curl ')) return;
      const expect = /^# -> (\d{3}(?:\s*or\s*\d{3})*)(?:.*?\bthen (.+))?/.exec(lines[i + 1] ?? '');
      if (!expect) throw new Error(`no "# -> STATUS" line after: ${line}`);
      steps.push({
        command: line,
        statuses: expect[1]!.split(/\s*or\s*/).map(Number),
        then: expect[2]?.trim(),
      });
    });
  }
  return steps;
}

interface Answer {
  status: number;
  output: string;
}

/** Runs one step through bash; curl prints the response head (-D -) before the body. */
function run(step: TourStep, base: string, token: string): Promise<Answer> {
  const command = step.command.replaceAll(documentedBase, base);
  const stream = /\scurl\s.*\s-N\s|^curl -N\s|^curl .*\s-N\s/.test(command);
  const child = spawn('bash', ['-c', `curl() { command curl -sS -D - "$@"; }\n${command}`], {
    env: { ...process.env, TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so ending a stream ends bash and curl together
  });
  const end = (): void => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  let output = '';
  let errors = '';
  child.stderr.on('data', (c: Buffer) => (errors += c.toString()));
  return new Promise((done, fail) => {
    const status = (): number | undefined => {
      const m = /^HTTP\/[\d.]+ (\d{3})/m.exec(output);
      return m ? Number(m[1]) : undefined;
    };
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      const s = status();
      // A stream never ends by itself: stop reading once its status and the documented text have arrived,
      // or at once when the status is not the documented one.
      const seen = step.then === undefined || output.toLowerCase().includes(step.then.toLowerCase());
      if (stream && s !== undefined && (seen || !step.statuses.includes(s))) end();
    });
    child.once('error', fail);
    child.once('close', (code, signal) => {
      const s = status();
      if (s === undefined) {
        fail(new Error(`no answer (exit ${String(code ?? signal)}): ${errors}\n${command}`));
      } else done({ status: s, output });
    });
  });
}

describe('README: the five-minute tour runs as written', { timeout: 180_000 }, () => {
  const steps = tourSteps(section(read(join(root, 'README.md')), 'A five-minute tour'));
  let gateway: CliProcess;
  let token: string;

  before(async () => {
    gateway = await CliProcess.start([
      'serve',
      '--config',
      join(root, 'examples/appsettings.json'),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
    ]);
    const printed = /Admin token[^\n]*\n(\S+)/.exec(gateway.output())?.[1];
    assert.ok(printed, `no admin token in the start-up output: ${gateway.output()}`);
    token = printed;
  });

  after(async () => {
    await gateway?.stop();
  });

  it('reads every tour curl with its documented answer', () => {
    assert.throws(() => tourSteps('```sh\ncurl http://x/\n```\n'), /no "# -> STATUS" line/);
    assert.deepEqual(tourSteps('```sh\ncurl -N \\\n  http://x/\n# -> 200 or 503 then event: a\n```\n'), [
      { command: 'curl -N http://x/', statuses: [200, 503], then: 'event: a' },
    ]);
    const urls = steps.map((s) => s.command);
    for (const route of [
      '/api/plcs',
      '/variables/',
      'notifications/sse',
      '/api/alarms/stream',
      '/acknowledge',
      '/mcp',
    ]) {
      assert.ok(
        urls.some((u) => u.includes(route)),
        `the tour has a curl on ${route}`,
      );
    }
  });

  for (const [i, step] of steps.entries()) {
    it(`${i + 1}: ${step.command.slice(0, 110)}`, async () => {
      const answer = await run(step, gateway.url, token).catch((err: Error) => {
        throw new Error(`${err.message}\ngateway output:\n${gateway.output().slice(-3000)}`);
      });
      assert.ok(
        step.statuses.includes(answer.status),
        `answered ${answer.status}, the README says ${step.statuses.join(' or ')}:\n${answer.output}`,
      );
      if (step.then !== undefined) {
        assert.ok(
          answer.output.toLowerCase().includes(step.then.toLowerCase()),
          `"${step.then}" in:\n${answer.output}`,
        );
      }
    });
  }
});
