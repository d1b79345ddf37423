// Validates a parsed machine.yaml document: the built-in schema through ajv, then the cross-field rules
// a schema cannot express. Every problem is located by JSON Pointer.
import { Ajv, type ErrorObject } from 'ajv';
import { ScenarioSchema, type ScenarioDefinition } from './schema.ts';
import { checkLeafValue, resolveScriptPath } from './hmi-layout.ts';
import { ProgramBuilder } from '../engine/index.ts';
import { declareScenarioTypes, declareScenarioVariables } from './declare-extensions.ts';
import { checkEtherCatSection, etherCatAction, isProblem } from './ethercat-validate.ts';
import { formatProblem, type ScenarioProblem } from './problem.ts';

export type ScenarioValidation =
  { ok: true; scenario: ScenarioDefinition } | { ok: false; problems: ScenarioProblem[] };

const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
});
ajv.addKeyword({ keyword: 'errorMessage', schemaType: ['string', 'object'] });
const validateSchema = ajv.compile(ScenarioSchema);

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

function customMessage(err: ErrorObject): string | undefined {
  const annotation: unknown = err.parentSchema?.errorMessage;
  if (typeof annotation === 'string') return annotation;
  if (annotation && typeof annotation === 'object') {
    const m = (annotation as Record<string, unknown>)[err.keyword];
    if (typeof m === 'string') return m;
  }
  return undefined;
}

function fromAjv(err: ErrorObject): ScenarioProblem {
  const params = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return {
        pointer: `${err.instancePath}/${escapeToken(String(params.missingProperty))}`,
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        pointer: `${err.instancePath}/${escapeToken(String(params.additionalProperty))}`,
        message: 'is not a known key',
      };
    default:
      break;
  }
  const custom = customMessage(err);
  if (custom) return { pointer: err.instancePath, message: custom };
  if (err.keyword === 'const')
    return { pointer: err.instancePath, message: `must be exactly ${JSON.stringify(params.allowedValue)}` };
  if (err.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
    return { pointer: err.instancePath, message: `must be one of ${allowed}` };
  }
  return { pointer: err.instancePath, message: err.message ?? `fails ${err.keyword}` };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function checkUnique(values: unknown[], pointer: (i: number) => string, out: ScenarioProblem[]): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    if (typeof v !== 'string') return;
    const first = seen.get(v);
    if (first === undefined) seen.set(v, i);
    else out.push({ pointer: pointer(i), message: `duplicates ${pointer(first)} (${JSON.stringify(v)})` });
  });
}

function checkAxes(doc: Record<string, unknown>, out: ScenarioProblem[]): void {
  const axes = list(doc.axes);
  const parts = new Set(list(doc.parts).filter((p): p is string => typeof p === 'string'));
  checkUnique(list(doc.parts), (i) => `/parts/${i}`, out);
  const ids = axes.map((a) => (isObject(a) ? a.id : undefined));
  checkUnique(ids, (i) => `/axes/${i}/id`, out);
  axes.forEach((axis, i) => {
    if (!isObject(axis)) return;
    const at = `/axes/${i}`;
    if (typeof axis.id === 'string' && axis.id.includes('.')) {
      const part = axis.id.slice(0, axis.id.indexOf('.'));
      if (!parts.has(part))
        out.push({ pointer: `${at}/id`, message: `part "${part}" is not declared in /parts` });
    }
    const limits = isObject(axis.limits) ? axis.limits : {};
    const { min, max } = limits;
    if (!isNumber(min) || !isNumber(max)) return;
    if (!(min < max)) {
      out.push({ pointer: `${at}/limits/max`, message: `must be greater than min (${min})` });
      return;
    }
    const start = isObject(axis.start) ? axis.start : {};
    for (const key of ['position', 'targetPos']) {
      const v = start[key];
      if (isNumber(v) && (v < min || v > max)) {
        out.push({ pointer: `${at}/start/${key}`, message: `must be within the limits ${min}..${max}` });
      }
    }
  });
  const maxAxes = doc.maxAxes;
  if (typeof maxAxes === 'number' && Number.isInteger(maxAxes) && maxAxes >= 1 && maxAxes < axes.length) {
    out.push({
      pointer: '/maxAxes',
      message: `must be at least ${axes.length}, the number of axes declared (it is ${maxAxes})`,
    });
  }
}

function checkScript(doc: Record<string, unknown>, out: ScenarioProblem[]): void {
  const alarms = list(doc.alarms);
  checkUnique(
    alarms.map((a) => (isObject(a) ? a.key : undefined)),
    (i) => `/alarms/${i}/key`,
    out,
  );
  const keys = new Set(alarms.map((a) => (isObject(a) ? a.key : undefined)));
  const maxAxes = typeof doc.maxAxes === 'number' ? doc.maxAxes : 16;
  list(doc.script).forEach((step, i) => {
    if (!isObject(step)) return;
    const at = `/script/${i}`;
    const triggers = ['atCycle', 'atMs'].filter((k) => k in step);
    if (triggers.length !== 1) out.push({ pointer: at, message: 'must have exactly one of atCycle, atMs' });
    if ('every' in step && 'everyMs' in step) {
      out.push({ pointer: at, message: 'must have at most one of every, everyMs' });
    }
    const actions = ['set', 'raise', 'clear', 'fail', 'ethercat'].filter((k) => k in step);
    if (actions.length !== 1)
      out.push({ pointer: at, message: 'must have exactly one of set, raise, clear, fail, ethercat' });
    for (const key of ['raise', 'clear']) {
      const alarm = step[key];
      if (typeof alarm === 'string' && !keys.has(alarm)) {
        out.push({
          pointer: `${at}/${key}`,
          message: `no alarm with key ${JSON.stringify(alarm)} in /alarms`,
        });
      }
    }
    const set = step.set;
    if (!isObject(set) || typeof set.path !== 'string') return;
    const target = resolveScriptPath(set.path, maxAxes);
    if (typeof target === 'string') {
      out.push({ pointer: `${at}/set/path`, message: target });
      return;
    }
    if (!('value' in set)) return;
    const problem = checkLeafValue(target.field.type, set.value);
    if (problem) out.push({ pointer: `${at}/set/value`, message: problem });
  });
}

/** Each `ethercat` step names an existing master or slave in one of the action forms. */
function checkEtherCatSteps(doc: ScenarioDefinition, out: ScenarioProblem[]): void {
  doc.script.forEach((step, i) => {
    if (!step.ethercat) return;
    const action = etherCatAction(step.ethercat, doc.ethercat);
    if (isProblem(action))
      out.push({ pointer: `/script/${i}/ethercat${action.pointer}`, message: action.message });
  });
}

/** Validates a parsed document (defaults are applied to it in place) and returns the typed scenario. */
export function validateScenario(doc: unknown): ScenarioValidation {
  const schemaOk = validateSchema(doc);
  const problems: ScenarioProblem[] = [];
  const seen = new Set<string>();
  for (const err of validateSchema.errors ?? []) {
    const p = fromAjv(err);
    const line = formatProblem(p);
    if (!seen.has(line)) {
      seen.add(line);
      problems.push(p);
    }
  }
  if (isObject(doc)) {
    checkAxes(doc, problems);
    checkScript(doc, problems);
    checkEtherCatSection(doc, problems);
  }
  if (schemaOk) checkEtherCatSteps(doc, problems);
  // Types and variables are checked by declaring them on a scratch program (base types and the
  // scenario's own types are known there; a target's built-in types are not).
  if (schemaOk && problems.length === 0) {
    const scratch = new ProgramBuilder();
    problems.push(...declareScenarioTypes(scratch, doc), ...declareScenarioVariables(scratch, doc));
  }
  if (schemaOk && problems.length === 0) return { ok: true, scenario: doc };
  return { ok: false, problems };
}
