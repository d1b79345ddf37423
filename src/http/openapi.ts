// The OpenAPI document (/openapi.json) and Swagger UI (/docs), generated from route schemas. Routes of disabled
// feature areas stay registered (they answer 501) but are left out of the document. Each operation gets, centrally,
// its operationId, its security and every error status its rules can answer (openapi-operations.ts).
import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type, type TObject } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifySchema } from 'fastify';
import type { Config } from '../config/schema.ts';
import { requiresToken } from '../guards/install-guards.ts';
import { errorResponses, operationIdOf } from './openapi-operations.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Shown in the OpenAPI document only: responses written outside fastify's serializer (hijacked replies such as
     * MCP), which a `response` schema would wrongly reshape.
     */
    openapi?: { readonly responses?: Readonly<Record<string, unknown>> };
  }
}

function packageJson(): { version?: unknown; license?: unknown } {
  // The same relative path works from src/http and from the built dist/http.
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
    license?: unknown;
  };
}

export function packageVersion(): string {
  const { version } = packageJson();
  return typeof version === 'string' ? version : '0.0.0';
}

/** Every tag an operation may carry, with what the area is for; unused ones are left out of the document. */
export const openApiTags: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'PLCs', description: 'The configured PLCs the token may reach, and the connection state of each.' },
  { name: 'Symbols', description: 'Browse and search the symbol table of a PLC.' },
  {
    name: 'Type metadata',
    description: 'Data types of a PLC, e.g. the members of an enum (flag TypeMetadata).',
  },
  {
    name: 'Variables',
    description: 'Read and write PLC variables by symbol path, one at a time or in batches.',
  },
  { name: 'Methods', description: 'Call methods of function blocks over ADS RPC (flag Rpc, allow-listed).' },
  { name: 'Device', description: 'Device info and ADS state of a PLC.' },
  { name: 'Files', description: 'Read, write and list files under the PLC’s file root (flag Files).' },
  { name: 'Lifecycle', description: 'Start, stop and reset the PLC runtime (flag Lifecycle).' },
  {
    name: 'Notifications',
    description:
      'Live variable changes as Server-Sent Events or over the SignalR hub. EventSource clients may pass the ' +
      'token in access_token.',
  },
  {
    name: 'Alarms',
    description: 'Outstanding alarms, acknowledgement, history and alarm streams (flag Alarms).',
  },
  { name: 'EtherCAT', description: 'EtherCAT masters, slaves and topology (flag EtherCatDiagnostics).' },
  { name: 'Simulation', description: 'Drive the scenario of a simulated PLC (flag Simulation).' },
  {
    name: 'History',
    description: 'Recorded PLC values and alarm transitions over any time window (flag History).',
  },
  { name: 'Admin', description: 'The audit trail and the open stream connections (Admin policy).' },
  { name: 'MCP', description: 'Model Context Protocol (Streamable HTTP) for AI agents (flag Mcp).' },
  { name: 'Health', description: 'Anonymous liveness and readiness probes for orchestrators.' },
  { name: 'Documentation', description: 'This OpenAPI document.' },
];

const accessTokenParameter = Type.String({
  description:
    'The bearer token, for clients that cannot send an Authorization header (a browser’s EventSource, ' +
    'WebSocket). Send it here or in the header, not both. Tokens in URLs may reach proxies’ logs: prefer ' +
    'short-lived ones.',
});

interface RouteInfo {
  readonly url: string;
  readonly method: string | string[];
  readonly config?: FastifyContextConfig;
  readonly sse?: unknown;
}

/** The route's schema as the document shows it: files' `*` as {path}, access_token on streams, every status. */
function documented(schema: FastifySchema, route: RouteInfo): { schema: FastifySchema; url: string } {
  const config = route.config ?? {};
  const stream = route.sse !== undefined || config.eventStream === true;
  let url = route.url;
  let params = schema.params as TObject | undefined;
  // A wildcard route's rest of the path is the parameter `*`, which OpenAPI cannot name: it is shown as {path}.
  if (url.endsWith('/*') && params?.properties['*'] !== undefined) {
    url = `${url.slice(0, -1)}:path`;
    const { '*': rest, ...named } = params.properties;
    params = { ...params, properties: { ...named, path: rest }, required: [...Object.keys(named), 'path'] };
  }
  let querystring = schema.querystring as TObject | undefined;
  if (stream) {
    querystring = querystring
      ? { ...querystring, properties: { ...querystring.properties, access_token: accessTokenParameter } }
      : Type.Object({ access_token: Type.Optional(accessTokenParameter) });
  }
  const secured = requiresToken(route.url, config);
  const declared = {
    ...(schema.response as Record<string, unknown> | undefined),
    ...config.openapi?.responses,
  };
  // A multi-method route shares one schema: its statuses are those of every method.
  const methods = (typeof route.method === 'string' ? [route.method] : route.method).map((m) =>
    m.toUpperCase(),
  );
  return {
    url,
    schema: {
      ...schema,
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      security: secured ? [{ bearer: [] }] : [],
      response: {
        ...declared,
        ...errorResponses(
          {
            methods,
            secured,
            hasParams: (params && Object.keys(params.properties).length > 0) ?? false,
            config,
          },
          declared,
        ),
      },
    },
  };
}

type Operations = Record<string, Record<string, { operationId?: string; tags?: string[] }>>;

/** Sets each operation's operationId (multi-method routes share one schema object) and checks they are unique. */
function withOperationIds(paths: Operations): Set<string> {
  const seen = new Map<string, string>();
  const tags = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const operationId = operationIdOf(method, path);
      const where = `${method.toUpperCase()} ${path}`;
      const other = seen.get(operationId);
      if (other !== undefined) throw new Error(`operationId ${operationId} of ${where} is also ${other}'s.`);
      seen.set(operationId, where);
      operations[method] = { ...operation, operationId };
      for (const tag of operation.tags ?? []) tags.add(tag);
    }
  }
  return tags;
}

export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const { license } = packageJson();
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'plc-gateway',
        description:
          'HTTP gateway to Beckhoff TwinCAT PLCs over ADS. Every JSON response is the envelope `{ data, error }`.',
        version: packageVersion(),
        ...(typeof license === 'string'
          ? { license: { name: license, url: `https://spdx.org/licenses/${license}.html` } }
          : {}),
      },
      // Relative to where this document is served, so it holds behind any host name, port or proxy.
      servers: [{ url: '/', description: 'The gateway serving this document' }],
      tags: [...openApiTags],
      security: [{ bearer: [] }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: ({ schema, url, route }) => {
      const feature = route.config?.feature;
      if (schema?.hide === true) return { schema, url };
      if (feature !== undefined && !config.features[feature])
        return { schema: { ...schema, hide: true }, url };
      return documented(schema ?? {}, route);
    },
    transformObject: (document) => {
      // Only the OpenAPI form is generated here (`openapi` above), never Swagger 2.
      if (!('openapiObject' in document)) return document.swaggerObject;
      const doc = document.openapiObject;
      const used = withOperationIds(doc.paths as Operations);
      return { ...doc, tags: doc.tags?.filter((tag: { name: string }) => used.has(tag.name)) };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get(
    '/openapi.json',
    {
      schema: { tags: ['Documentation'], summary: 'This OpenAPI document' },
      config: {
        openapi: {
          responses: {
            200: {
              description: 'The OpenAPI 3.0 document',
              content: { 'application/json': { schema: Type.Object({}, { additionalProperties: true }) } },
            },
          },
        },
      },
    },
    () => app.swagger(),
  );
}
