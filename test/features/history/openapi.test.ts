// The history routes in the OpenAPI document: their query parameters, JSON and CSV answers, the error envelope;
// left out while the History flag is off.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp } from '../../helpers/app.ts';
import { startHistoryRig } from './fixture.ts';

interface Operation {
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

describe('history in OpenAPI', () => {
  it('documents the query and the listing', async () => {
    const rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.fTemp' }] });
    try {
      const doc = (await rig.get('/openapi.json')).json<{ paths: Record<string, { get?: Operation }> }>();
      const query = doc.paths['/api/plcs/{plcId}/history']?.get;
      assert.ok(query);
      assert.deepEqual(query.tags, ['History']);
      const params = new Map((query.parameters ?? []).map((p) => [p.name, p]));
      for (const name of ['symbols', 'from', 'to', 'maxPoints', 'aggregate', 'cursor']) {
        assert.equal(params.get(name)?.in, 'query', name);
      }
      assert.equal(params.get('symbols')?.required, true);
      assert.equal(params.get('cursor')?.required, false);
      assert.deepEqual(Object.keys(query.responses['200']?.content ?? {}).sort(), [
        'application/json',
        'text/csv',
      ]);
      assert.ok(query.responses['4XX'] ?? query.responses['4xx']);
      assert.deepEqual(doc.paths['/api/plcs/{plcId}/history/symbols']?.get?.tags, ['History']);
    } finally {
      await rig.close();
    }
  });

  it('leaves the routes out while the flag is off', async () => {
    const app = await buildTestApp();
    try {
      const doc = (await app.inject('/openapi.json')).json<{ paths: Record<string, unknown> }>();
      assert.equal(doc.paths['/api/plcs/{plcId}/history'], undefined);
      assert.equal(doc.paths['/api/plcs/{plcId}/history/symbols'], undefined);
    } finally {
      await app.close();
    }
  });
});
