// The rules of the `ethercat:` section and of `ethercat` script steps that a JSON schema cannot state:
// unique device ids and addresses, wiring to slaves that exist and that wire back, one action form per step
// naming a master and slave that exist. Also turns a valid step into the action the system applies.
import { portNames, type PortName } from '../../plc/ethercat/index.ts';
import type { EtherCatAction } from '../ethercat/system.ts';
import type { EtherCatSectionDefinition, EtherCatStepDefinition } from './schema.ts';
import type { ScenarioProblem } from './problem.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function checkMaster(master: Record<string, unknown>, at: string, out: ScenarioProblem[]): void {
  const slaves = list(master.slaves).filter(isObject);
  const seen = new Map<unknown, number>();
  slaves.forEach((s, i) => {
    const first = seen.get(s.address);
    if (first === undefined) seen.set(s.address, i);
    else
      out.push({
        pointer: `${at}/slaves/${i}/address`,
        message: `duplicates ${at}/slaves/${first}/address (${String(s.address)})`,
      });
  });
  const portsOf = (s: Record<string, unknown>) => (isObject(s.ports) ? s.ports : {});
  slaves.forEach((s, i) => {
    for (const p of portNames) {
      const n = portsOf(s)[p];
      if (typeof n !== 'number') continue;
      const where = `${at}/slaves/${i}/ports/${p}`;
      const other = slaves.find((o) => o.address === n);
      if (n === s.address) out.push({ pointer: where, message: 'cannot wire a slave to itself' });
      else if (!other) out.push({ pointer: where, message: `no slave with address ${n} on this master` });
      else if (!portNames.some((q) => portsOf(other)[q] === s.address)) {
        out.push({ pointer: where, message: `slave ${n} has no port wired back to ${String(s.address)}` });
      }
    }
  });
}

/** Problems of the `ethercat:` section (the schema has checked shapes and ranges). */
export function checkEtherCatSection(doc: Record<string, unknown>, out: ScenarioProblem[]): void {
  if (!isObject(doc.ethercat)) return;
  const masters = list(doc.ethercat.masters);
  const ids = new Map<unknown, number>();
  masters.forEach((m, i) => {
    if (!isObject(m)) return;
    const first = ids.get(m.deviceId);
    if (first === undefined) ids.set(m.deviceId, i);
    else
      out.push({
        pointer: `/ethercat/masters/${i}/deviceId`,
        message: `duplicates /ethercat/masters/${first}/deviceId (${String(m.deviceId)})`,
      });
    checkMaster(m, `/ethercat/masters/${i}`, out);
  });
}

type Masters = ReadonlyArray<{ deviceId: number; slaves: ReadonlyArray<{ address: number }> }>;

/** The action of a valid step, or why the step is not valid (pointer relative to the step's `ethercat`). */
export function etherCatAction(
  step: EtherCatStepDefinition,
  section: EtherCatSectionDefinition | undefined,
): EtherCatAction | ScenarioProblem {
  const problem = (pointer: string, message: string): ScenarioProblem => ({ pointer, message });
  if (!section) return problem('', 'needs an ethercat: section declaring the masters');
  const masters: Masters = section.masters;
  const { master, slave, state, error, link, port, crcErrors } = step;
  if (master !== undefined && !masters.some((m) => m.deviceId === master)) {
    return problem('/master', `no master with deviceId ${master} in /ethercat/masters`);
  }
  if (slave === undefined) {
    if (
      master === undefined ||
      state === undefined ||
      [error, link, port, crcErrors].some((v) => v !== undefined)
    ) {
      return problem(
        '',
        'must be { slave, state, error? }, { slave, link, port? }, { slave, port, crcErrors } or { master, state }',
      );
    }
    return { kind: 'master-state', master, state };
  }
  const on = masters.filter(
    (m) => (master === undefined || m.deviceId === master) && m.slaves.some((s) => s.address === slave),
  );
  if (on.length === 0)
    return problem(
      '/slave',
      `no slave with address ${slave}${master === undefined ? '' : ` on master ${master}`}`,
    );
  if (on.length > 1) {
    return problem(
      '/slave',
      `address ${slave} is on masters ${on.map((m) => m.deviceId).join(' and ')}: name one with master`,
    );
  }
  const forms = [state, link, crcErrors].filter((v) => v !== undefined).length;
  if (
    forms !== 1 ||
    (error !== undefined && state === undefined) ||
    (port !== undefined && state !== undefined)
  ) {
    return problem(
      '',
      'must be { slave, state, error? }, { slave, link, port? }, { slave, port, crcErrors } or { master, state }',
    );
  }
  const at = master === undefined ? {} : { master };
  if (state !== undefined) return { kind: 'slave-state', ...at, slave, state, error: error ?? false };
  if (link !== undefined) return { kind: 'link', ...at, slave, link, ...(port ? { port } : {}) };
  if (port === undefined) return problem('/port', 'crcErrors needs the port whose counter it sets');
  return { kind: 'crc', ...at, slave, port: port satisfies PortName, count: crcErrors ?? 0 };
}

export function isProblem(v: EtherCatAction | ScenarioProblem): v is ScenarioProblem {
  return 'message' in v;
}
