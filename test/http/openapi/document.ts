// The OpenAPI document as the running app serves it with every feature flag on (every area listed), for the lint
// in CI and the tests of the document and of a client generated from it. Run directly, it writes the document to
// the file named by its argument.
import { writeFileSync } from 'node:fs';
import { featureNames, type FeatureName } from '../../../src/config/schema.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';

export type OpenApiDocument = {
  openapi: string;
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, Record<string, unknown>>;
};

export interface OpenApiOperation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

/** Settings turning every feature on, with the settings some areas need to register their routes. */
export const everyFeature = {
  Features: Object.fromEntries(featureNames.map((name) => [name, true])) as Record<FeatureName, boolean>,
  PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } } },
};

export async function openApiDocument(): Promise<OpenApiDocument> {
  const app = await buildTestApp({ targets: [new FakeTarget('line1')], settings: everyFeature });
  try {
    const res = await app.inject('/openapi.json');
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json<OpenApiDocument>();
  } finally {
    await app.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (out === undefined) throw new Error('usage: document.ts <output file>');
  writeFileSync(out, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
}
