// The KPI routes in the OpenAPI document: their window parameters, the figures and benchmarks of the answer,
// and the error statuses their rules answer (400 window, 403, 404 PLC, 429 HistoryQueries).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { openApiDocument, type OpenApiDocument } from '../../../http/openapi/document.ts';

describe('alarm KPIs in OpenAPI', () => {
  let doc: OpenApiDocument;
  before(async () => {
    doc = await openApiDocument();
  });

  const schemaText = (op: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }) =>
    JSON.stringify(op.responses['200']?.content?.['application/json']?.schema);

  test('one PLC and the fleet, with from and to, the figures and the benchmarks', () => {
    for (const [path, statuses] of [
      ['/api/plcs/{plcId}/alarms/kpis', ['400', '401', '403', '404', '429']],
      ['/api/alarms/kpis', ['400', '401', '403', '429']],
    ] as const) {
      const op = doc.paths[path]?.get;
      assert.ok(op, path);
      assert.deepEqual(op.tags, ['Alarms']);
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required]);
      assert.deepEqual(query, [
        ['from', false],
        ['to', false],
      ]);
      for (const status of statuses) assert.ok(op.responses[status], `${path} ${status}`);
      const answer = schemaText(op);
      for (const field of [
        'covered',
        'per10Minutes',
        'floodShare',
        'standing',
        'chattering',
        'topKeys',
        'p90Seconds',
        'outOfService',
        'veryLikelyAcceptable',
      ]) {
        assert.ok(answer.includes(`"${field}"`), `${path} answers ${field}`);
      }
    }
    assert.equal(doc.paths['/api/plcs/{plcId}/alarms/kpis']?.get?.operationId, 'getPlcAlarmsKpis');
  });
});
