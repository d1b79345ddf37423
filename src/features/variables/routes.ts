// Variable routes (flag Variables): read one or a batch (ReadAccess), write one or a batch (WriteAccess).
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { auditParam, noteAudit } from '../../http/audit-hooks.ts';
import { ErrorBody, envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { maxBatchPaths, readVariable, readVariables, writeVariable, writeVariables } from './service.ts';

// Values are whatever the PLC type gives (numbers, strings, objects, arrays): never reshaped on the way out.
const AnyValue = Type.Unknown({
  description:
    'JSON value of the PLC type: BOOL boolean; integers and REAL/LREAL numbers; LINT/ULINT/LWORD/LTIME decimal ' +
    'strings; STRING/WSTRING strings; TIME/TOD milliseconds; DATE/DT ISO 8601 strings; enums their integer ' +
    '(written also as a member name or { name }); structs objects by member name; arrays arrays',
});

const VariableValue = Type.Object({
  symbol: Type.String(),
  value: AnyValue,
  typeName: Type.String(),
  timestamp: Type.String({ format: 'date-time', description: 'When the value was sampled, ISO 8601 UTC' }),
});

const WrittenValue = Type.Object({
  symbol: Type.String(),
  value: AnyValue,
  typeName: Type.Union([Type.String(), Type.Null()]),
  timestamp: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the value read back was sampled; null when it could not be read back',
  }),
  readBackError: Type.Optional(
    Type.Object(ErrorBody.properties, {
      description: 'The write landed but reading it back failed: value, typeName and timestamp are null',
    }),
  ),
});

const BatchReadEntry = Type.Object({
  symbol: Type.String(),
  value: AnyValue,
  typeName: Type.Union([Type.String(), Type.Null()]),
  error: Type.Optional(ErrorBody),
});

const BatchWriteEntry = Type.Object({
  symbol: Type.String(),
  written: Type.Boolean(),
  error: Type.Optional(ErrorBody),
});

const PathParams = Type.Object({
  ...PlcIdParams.properties,
  path: Type.String({ description: 'Instance path, URL-encoded, e.g. GVL_HMI.aAxes%5B3%5D.rPosition' }),
});

const batchNote = `at most ${maxBatchPaths} (400 BATCH_LIMIT_EXCEEDED beyond)`;

const readConfig = { feature: 'Variables', policy: 'ReadAccess', plcScoped: true } as const;
const writeConfig = { feature: 'Variables', policy: 'WriteAccess', plcScoped: true } as const;
// A batch is one record: its paths as the target, values keyed by path.
const batchTarget = (request: { body?: unknown }): string => {
  const values = (request.body as { values?: unknown } | undefined)?.values;
  return typeof values === 'object' && values !== null ? Object.keys(values).join(', ') : '';
};

export const variablesRoutes: FeaturePlugin = (app, _context) => {
  app.get(
    '/api/plcs/:plcId/variables/:path',
    {
      schema: {
        tags: ['Variables'],
        summary: 'Read one variable',
        params: PathParams,
        response: envelopeResponses(VariableValue),
      },
      config: readConfig,
    },
    async (request) => ok(await readVariable(targetOf(request), request.params.path)),
  );

  app.get(
    '/api/plcs/:plcId/variables',
    {
      schema: {
        tags: ['Variables'],
        summary: 'Read several variables in one PLC round trip; a bad path fails alone',
        params: PlcIdParams,
        querystring: Type.Object({
          paths: Type.Array(Type.String({ minLength: 1 }), {
            minItems: 1,
            description: `Repeat the parameter per path (paths=a&paths=b), ${batchNote}`,
          }),
        }),
        response: envelopeResponses(
          Type.Object({
            values: Type.Record(Type.String(), BatchReadEntry, {
              description: 'By path as requested; a failed path has value and typeName null and an error',
            }),
          }),
        ),
      },
      config: readConfig,
    },
    async (request) => ok(await readVariables(targetOf(request), request.query.paths)),
  );

  app.put(
    '/api/plcs/:plcId/variables/:path',
    {
      schema: {
        tags: ['Variables'],
        summary: 'Write one variable; answers the value read back (or readBackError)',
        params: PathParams,
        body: Type.Object({ value: AnyValue }),
        response: envelopeResponses(WrittenValue),
      },
      config: { ...writeConfig, audit: auditParam('variable.write', 'path') },
    },
    async (request) => {
      const { path } = request.params;
      const written = await writeVariable(targetOf(request), path, request.body.value);
      noteAudit(request, {
        oldValue: written.oldValues[path] ?? null,
        newValue: written.newValues[path] ?? null,
      });
      return ok(written.result);
    },
  );

  app.put(
    '/api/plcs/:plcId/variables',
    {
      schema: {
        tags: ['Variables'],
        summary: 'Write several variables; each value is validated alone and a bad one fails only its path',
        params: PlcIdParams,
        body: Type.Object({
          values: Type.Record(Type.String(), AnyValue, {
            description: `Value by path, ${batchNote}`,
          }),
        }),
        response: envelopeResponses(
          Type.Object({ results: Type.Record(Type.String(), BatchWriteEntry, { description: 'By path' }) }),
        ),
      },
      config: { ...writeConfig, audit: { action: 'variable.write', target: batchTarget } },
    },
    async (request) => {
      const written = await writeVariables(targetOf(request), request.body.values);
      const failed = Object.values(written.result.results).filter((r) => !r.written);
      noteAudit(request, {
        oldValue: written.oldValues,
        newValue: written.newValues,
        ...(failed[0] && 'error' in failed[0]
          ? {
              error: {
                code: failed[0].error.code,
                message: `${failed.length} of the paths were not written.`,
              },
            }
          : {}),
      });
      return ok(written.result);
    },
  );
};
