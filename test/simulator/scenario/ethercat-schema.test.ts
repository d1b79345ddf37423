// machine.yaml's `ethercat:` section and `ethercat` script steps: defaults, and every rule at its edge with
// the problem located by JSON Pointer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatProblem, validateScenario } from '../../../src/simulator/scenario/index.ts';

const slave = (address: number, extra: Record<string, unknown> = {}) => ({
  address,
  name: `Term ${address}`,
  type: 'EL1008',
  ...extra,
});

function doc(ethercat: unknown, script: unknown[] = []): Record<string, unknown> {
  return { contract: 'gvl-hmi/1', root: 'GVL_HMI', ethercat, script };
}

const bus = {
  masters: [
    {
      name: 'M',
      deviceId: 2,
      slaves: [slave(1001, { ports: { B: 1002 } }), slave(1002, { ports: { A: 1001 } })],
    },
    { name: 'M2', deviceId: 3, slaves: [slave(1001)] },
  ],
};

function problems(d: Record<string, unknown>): string[] {
  const result = validateScenario(structuredClone(d));
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('scenario ethercat section', () => {
  test('a valid bus gets identity and wiring defaults', () => {
    const result = validateScenario(doc({ masters: [{ name: 'M', deviceId: 1, slaves: [slave(7)] }] }));
    assert.ok(result.ok);
    assert.deepEqual(result.scenario.ethercat?.masters[0]?.slaves[0], {
      ...slave(7),
      vendorId: 0,
      productCode: 0,
      revision: 0,
      serial: 0,
      ports: {},
    });
  });

  test('ranges, names and shapes', () => {
    assert.deepEqual(
      problems(
        doc({
          masters: [
            {
              name: '',
              deviceId: 0,
              slaves: [
                slave(0),
                slave(65535, { ports: { E: 1 } }),
                slave(5, { type: 'X'.repeat(16), vendorId: -1 }),
              ],
            },
          ],
        }),
      ),
      [
        '/ethercat/masters/0/name: must NOT have fewer than 1 characters',
        '/ethercat/masters/0/deviceId: must be a device id 1-254',
        '/ethercat/masters/0/slaves/0/address: must be an address 1-65534',
        '/ethercat/masters/0/slaves/1/address: must be an address 1-65534',
        '/ethercat/masters/0/slaves/1/ports/E: is not a known key',
        '/ethercat/masters/0/slaves/2/type: must NOT have more than 15 characters',
        '/ethercat/masters/0/slaves/2/vendorId: must be >= 0',
      ],
    );
    assert.deepEqual(problems(doc({ masters: [] })), ['/ethercat/masters: must NOT have fewer than 1 items']);
  });

  test('unique device ids and addresses; wiring to slaves that exist and wire back', () => {
    assert.deepEqual(
      problems(
        doc({
          masters: [
            {
              name: 'M',
              deviceId: 2,
              slaves: [slave(1, { ports: { B: 2, C: 9, D: 1 } }), slave(2), slave(1)],
            },
            { name: 'N', deviceId: 2, slaves: [] },
          ],
        }),
      ),
      [
        '/ethercat/masters/0/slaves/2/address: duplicates /ethercat/masters/0/slaves/0/address (1)',
        '/ethercat/masters/0/slaves/0/ports/B: slave 2 has no port wired back to 1',
        '/ethercat/masters/0/slaves/0/ports/C: no slave with address 9 on this master',
        '/ethercat/masters/0/slaves/0/ports/D: cannot wire a slave to itself',
        '/ethercat/masters/1/deviceId: duplicates /ethercat/masters/0/deviceId (2)',
      ],
    );
  });
});

describe('scenario ethercat script steps', () => {
  test('the four action forms are valid', () => {
    const script = [
      { atCycle: 1, ethercat: { slave: 1002, state: 'SAFEOP', error: true } },
      { atCycle: 1, ethercat: { slave: 1002, link: 'missing', port: 'B' } },
      { atCycle: 1, ethercat: { slave: 1002, port: 'B', crcErrors: 150 } },
      { atCycle: 1, ethercat: { master: 2, state: 'PREOP' } },
      { atCycle: 1, ethercat: { master: 3, slave: 1001, link: 'lost' } },
    ];
    assert.deepEqual(problems(doc(bus, script)), []);
  });

  test('each bad step is located', () => {
    const script = [
      { atCycle: 1, ethercat: { slave: 1001, state: 'OP' } },
      { atCycle: 1, ethercat: { slave: 4711, state: 'OP' } },
      { atCycle: 1, ethercat: { master: 9, state: 'OP' } },
      { atCycle: 1, ethercat: { slave: 1002, state: 'OP', link: 'ok' } },
      { atCycle: 1, ethercat: { slave: 1002, crcErrors: 1 } },
      { atCycle: 1, ethercat: { master: 2 } },
      { atCycle: 1, ethercat: { slave: 1002, state: 'RUN' } },
      { atCycle: 1, ethercat: { slave: 1002, link: 'ok' }, raise: 'x' },
    ];
    assert.deepEqual(problems(doc(bus, script)), [
      '/script/6/ethercat/state: must be INIT, PREOP, BOOT, SAFEOP or OP',
      '/script/7: must have exactly one of set, raise, clear, fail, ethercat',
      '/script/7/raise: no alarm with key "x" in /alarms',
    ]);
    const valid = script.slice(0, 6);
    assert.deepEqual(problems(doc(bus, valid)), [
      '/script/0/ethercat/slave: address 1001 is on masters 2 and 3: name one with master',
      '/script/1/ethercat/slave: no slave with address 4711',
      '/script/2/ethercat/master: no master with deviceId 9 in /ethercat/masters',
      '/script/3/ethercat: must be { slave, state, error? }, { slave, link, port? }, { slave, port, crcErrors } or { master, state }',
      '/script/4/ethercat/port: crcErrors needs the port whose counter it sets',
      '/script/5/ethercat: must be { slave, state, error? }, { slave, link, port? }, { slave, port, crcErrors } or { master, state }',
    ]);
    assert.deepEqual(
      problems({
        contract: 'gvl-hmi/1',
        root: 'GVL_HMI',
        script: [{ atCycle: 1, ethercat: { master: 2, state: 'OP' } }],
      }),
      ['/script/0/ethercat: needs an ethercat: section declaring the masters'],
    );
  });
});
