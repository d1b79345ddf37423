// The audit record's wire shape (TypeBox): the admin route's answer, and the check an entry read back from a
// shared store (Redis) passes before it is served.
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { AuditAction, AuditEntry } from './store.ts';
import { maxTextLength } from './trail.ts';

const auditActions: readonly AuditAction[] = [
  'variable.write',
  'method.invoke',
  'file.write',
  'lifecycle.start',
  'lifecycle.stop',
  'lifecycle.reset',
  'sim.step',
  'sim.run',
  'sim.pause',
  'sim.reset',
  'alarm.acknowledge',
  'alarm.shelve',
  'alarm.unshelve',
  'alarm.out-of-service',
  'alarm.return-to-service',
  'connection.terminate',
  'ethercat.reset-error-counters',
];

const AuditErrorBody = Type.Object(
  { code: Type.String({ maxLength: 64 }), message: Type.String({ maxLength: maxTextLength }) },
  { additionalProperties: false },
);

/** What a store keeps of a record: everything but its seq. `at` is given: the compiled check knows no formats. */
const entrySchema = (at: ReturnType<typeof Type.String>) =>
  Type.Object(
    {
      at,
      sub: Type.String({ maxLength: maxTextLength, description: 'The caller (JWT sub)' }),
      plcId: Type.Union([Type.String({ maxLength: maxTextLength }), Type.Null()], {
        description: 'The PLC as configured, whatever case the caller typed; null: none',
      }),
      action: Type.Unsafe<AuditAction>({
        ...Type.Union(auditActions.map((a) => Type.Literal(a))),
        description: 'variable.write, method.invoke, file.write, lifecycle.stop, sim.step, ...',
      }),
      target: Type.String({
        maxLength: maxTextLength,
        description: 'The path, method, file, state or connection acted on',
      }),
      result: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
      error: Type.Optional(AuditErrorBody),
      oldValue: Type.Optional(Type.Unknown()),
      newValue: Type.Optional(Type.Unknown()),
    },
    { additionalProperties: false },
  );

export const AuditEntrySchema = entrySchema(Type.String({ format: 'date-time' }));

export const AuditRecordSchema = Type.Object({
  seq: Type.Integer({ description: 'Increasing sequence number; the paging cursor' }),
  ...AuditEntrySchema.properties,
});

// The date as the trail writes it (toISOString).
const entryCheck = TypeCompiler.Compile(
  entrySchema(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' })),
);

/** The entry when `value` has an audit entry's shape, else undefined. */
export function asAuditEntry(value: unknown): AuditEntry | undefined {
  return entryCheck.Check(value) ? value : undefined;
}
