// Turns TypeBox validation errors into `Path.With.Dots: message` lines, one per setting, readable by operators.
import { Kind, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';

/** `/PlcTargets/line1/Rpc/Invokable/0` -> `PlcTargets.line1.Rpc.Invokable[0]` (indices only under arrays). */
export function dottedPath(pointer: string, root: unknown): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  let node: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(node)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return out;
}

function joinChoices(choices: string[]): string {
  if (choices.length <= 1) return choices.join('');
  return `${choices.slice(0, -1).join(', ')} or ${choices.at(-1) ?? ''}`;
}

/** A short description of what a schema accepts, for union messages. */
function describe(schema: TSchema): string[] {
  switch (schema[Kind]) {
    case 'Literal':
      return [String(schema.const)];
    case 'Boolean':
      return ['true', 'false'];
    case 'String':
      return ['a string'];
    case 'Integer':
      return ['an integer'];
    case 'Number':
      return ['a number'];
    case 'Object':
      return [`an object { ${Object.keys(schema.properties as object).join(', ')} }`];
    case 'Union':
      return (schema.anyOf as TSchema[]).flatMap(describe);
    default:
      return ['a valid value'];
  }
}

/** Worded apart from the "Ignored setting" warning of a foreign key: this one stops start-up. */
const unknownSetting = 'unknown setting, not one of plc-gateway (check the spelling)';

/** A value of the wrong JSON kind. */
const kindMessages = new Map<ValueErrorType, string>([
  [ValueErrorType.Boolean, 'must be true or false'],
  [ValueErrorType.Integer, 'must be an integer'],
  [ValueErrorType.Number, 'must be a number'],
  [ValueErrorType.String, 'must be a string'],
  [ValueErrorType.Object, 'must be an object'],
  [ValueErrorType.Array, 'must be an array'],
]);

function messageFor(error: ValueError, insideRecord: boolean): string {
  const schema = error.schema;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return 'is required';
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return insideRecord ? 'is not a valid id (use 1-64 letters, digits, _ or -)' : unknownSetting;
  }
  if (typeof schema.errorMessage === 'string') return schema.errorMessage;
  const wrongKind = kindMessages.get(error.type);
  if (wrongKind !== undefined) return wrongKind;
  switch (error.type) {
    case ValueErrorType.Union:
    case ValueErrorType.Literal:
      return `must be ${joinChoices(describe(schema))}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(schema.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(schema.maximum)}`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? 'must not be empty'
        : `must be at least ${String(schema.minLength)} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(schema.maxLength)} characters long`;
    case ValueErrorType.StringPattern:
      return `must match ${String(schema.pattern)}`;
    default:
      return error.message;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * For a union whose value is an object and which has exactly one object member, the errors inside that
 * member say more than "must be X or Y" (for example a misspelt key in an InitialValues entry).
 */
function unionDetail(error: ValueError): ValueError[] | undefined {
  if (!isPlainObject(error.value) || error.schema[Kind] !== 'Union') return undefined;
  const members = error.schema.anyOf as TSchema[];
  const objectIndexes = members.flatMap((m, i) => (m[Kind] === 'Object' ? [i] : []));
  const only = objectIndexes.length === 1 ? objectIndexes[0] : undefined;
  const iterator: ValueErrorIterator | undefined = only === undefined ? undefined : error.errors[only];
  return iterator ? [...iterator] : undefined;
}

/** Every schema problem, one line per setting path (the first problem found at a path wins). */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  const byPath = new Map<string, string>();
  const visit = (errors: Iterable<ValueError>): void => {
    for (const error of errors) {
      const detail = unionDetail(error);
      if (detail && detail.length > 0) {
        visit(detail);
        continue;
      }
      const path = dottedPath(error.path, value) || '(root)';
      if (byPath.has(path)) continue;
      const insideRecord = error.schema[Kind] === 'Record';
      byPath.set(path, messageFor(error, insideRecord));
    }
  };
  visit(Value.Errors(schema, value));
  return [...byPath].map(([path, message]) => `${path}: ${message}`);
}
