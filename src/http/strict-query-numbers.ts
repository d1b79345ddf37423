// Numbers in query strings are plain decimals. Schema validation coerces with JavaScript's Number(), which also
// takes `0x10`, `0b1`, `1e3`, `+5` and ` 1`, so a route declaring a numeric query parameter gets this check
// before validation: anything but decimal digits (with a sign or fraction where the type allows) is a 400.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

const integerText = /^-?\d+$/;
const numberText = /^-?\d+(\.\d+)?$/;

interface PropertySchema {
  readonly type?: unknown;
}

/** Numeric query parameters of a querystring schema, with the text pattern each must match. */
function numericParameters(schema: unknown): Array<[string, RegExp]> {
  const properties = (schema as { properties?: Record<string, PropertySchema> } | undefined)?.properties;
  if (properties === undefined) return [];
  const out: Array<[string, RegExp]> = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'integer') out.push([name, integerText]);
    else if (property.type === 'number') out.push([name, numberText]);
  }
  return out;
}

export function installStrictQueryNumbers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const checked = numericParameters(route.schema?.querystring);
    if (checked.length === 0) return;
    const check = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
      const query = request.query as Record<string, unknown>;
      for (const [name, pattern] of checked) {
        const value = query[name];
        if (value === undefined) continue;
        const texts = Array.isArray(value) ? value : [value];
        if (!texts.every((t) => typeof t === 'string' && pattern.test(t))) {
          const kind = pattern === numberText ? 'number' : 'integer';
          done(
            new AppError(
              'VALIDATION_ERROR',
              `querystring/${name} must be ${kind}, written in plain decimal digits.`,
            ),
          );
          return;
        }
      }
      done();
    };
    const existing = route.preValidation;
    route.preValidation =
      existing === undefined ? check : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
