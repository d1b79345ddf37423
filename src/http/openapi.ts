// The OpenAPI document (/openapi.json) and Swagger UI (/docs), generated from route schemas. Routes of disabled
// feature areas stay registered (they answer 501) but are left out of the document.
import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/schema.ts';

export function packageVersion(): string {
  // The same relative path works from src/http and from the built dist/http.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'plc-gateway',
        description:
          'HTTP gateway to Beckhoff TwinCAT PLCs over ADS. Every JSON response is the envelope `{ data, error }`.',
        version: packageVersion(),
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: ({ schema, url, route }) => {
      const feature = route.config?.feature;
      if (feature !== undefined && !config.features[feature])
        return { schema: { ...schema, hide: true }, url };
      const secured =
        url.startsWith('/api/') || route.config?.policy !== undefined || route.config?.authenticate === true;
      return { schema: secured ? { security: [{ bearer: [] }], ...schema } : schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
