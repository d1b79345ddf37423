// The fastify instance routes are declared on: the TypeBox type provider over the default server and logger.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The same instance type a feature plugin receives, for HTTP helpers that declare routes on it. */
export type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];
