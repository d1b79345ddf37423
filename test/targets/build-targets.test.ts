// buildTargets: one target per PlcTargets entry, Real ones disconnected, every target problem listed together.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configFromDocument } from '../../src/config/load.ts';
import { ConfigError } from '../../src/config/schema.ts';
import { AppError } from '../../src/errors.ts';
import { buildTargets } from '../../src/targets/build-targets.ts';

const config = (plcTargets: object) =>
  configFromDocument({ Auth: { UseDevelopmentKey: true }, PlcTargets: plcTargets }, '/srv/gateway', {});

describe('buildTargets', () => {
  it('builds Real targets that keep retrying and answer PLC_UNAVAILABLE while unreachable', async () => {
    // Port 1 on loopback refuses at once: the target retries in the background, start() does not throw.
    const targets = await buildTargets(
      config({ press: { DisplayName: 'Press', AmsNetId: '5.1.2.3.1.1', Address: '127.0.0.1', TcpPort: 1 } }),
    );
    assert.equal(targets.length, 1);
    const [press] = targets;
    assert.ok(press);
    assert.deepEqual([press.id, press.displayName, press.mode], ['press', 'Press', 'Real']);
    assert.equal(press.connectionState(), 'Disconnected');
    await press.start();
    assert.equal(press.connectionState(), 'Connecting');
    const calls: Array<() => Promise<unknown>> = [
      () => press.read('MAIN.x'),
      () => press.readMany(['MAIN.x']),
      () => press.write('MAIN.x', 1),
      () => press.writeMany([{ symbol: 'MAIN.x', value: 1 }]),
      () => press.symbols(),
      () => press.enumMembers('E_Mode'),
      () => press.deviceInfo(),
      () => press.deviceState(),
      () => press.setAdsState('Run'),
      () => press.invoke('MAIN.fb', 'M', []),
      () => press.subscribe('MAIN.x', { cycleTimeMs: 100, onChange: () => undefined }),
      () => press.files.read('a.txt'),
      () => press.files.write('a.txt', Buffer.from('x')),
      () => press.files.list(''),
    ];
    for (const call of calls) {
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'PLC_UNAVAILABLE');
        assert.equal(err.message, "PLC 'press' is not connected.");
        return true;
      });
    }
    assert.equal(press.simulation, undefined);
    await press.close();
    assert.equal(press.connectionState(), 'Disconnected');
  });

  it('builds simulated and real targets side by side', async () => {
    const targets = await buildTargets(
      config({ line1: { Mode: 'Simulated', DisplayName: 'Line 1' }, press: { AmsNetId: '5.1.2.3.1.1' } }),
    );
    assert.deepEqual(targets.map((t) => [t.id, t.mode]).sort(), [
      ['line1', 'Simulated'],
      ['press', 'Real'],
    ]);
    await Promise.all(targets.map((t) => t.close()));
  });

  it('collects the problems of every target into one ConfigError', async () => {
    const cfg = config({
      a: { Mode: 'Simulated', InitialValues: { 'MAIN.x': { type: 'NOPE' } } },
      b: { Mode: 'Simulated', InitialValues: { 'MAIN.y': { value: 'abc', type: 'INT' } } },
      c: { AmsNetId: '5.1.2.3.1.1' },
    });
    await assert.rejects(buildTargets(cfg), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.ok(
        err.problems.some((p) => p.startsWith('PlcTargets.a.')),
        err.problems.join('\n'),
      );
      assert.ok(
        err.problems.some((p) => p.startsWith('PlcTargets.b.')),
        err.problems.join('\n'),
      );
      return true;
    });
  });
});
