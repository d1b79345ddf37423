// /openapi.json documents the stream routes: the three SSE routes as text/event-stream with JSON refusals, and
// the negotiate route of both SignalR hubs (the WebSocket routes themselves are not HTTP operations).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}

test('/openapi.json lists the SSE routes (text/event-stream) and both negotiate routes', async () => {
  const app = await buildTestApp({
    targets: [new FakeTarget('line1')],
    settings: { Features: { Alarms: true, Notifications: true } },
  });
  try {
    const doc = (await app.inject('/openapi.json')).json<{
      paths: Record<string, Record<string, Operation>>;
    }>();
    for (const path of [
      '/api/plcs/{plcId}/notifications/sse',
      '/api/plcs/{plcId}/alarms/stream',
      '/api/alarms/stream',
    ]) {
      const op = doc.paths[path]?.get;
      assert.ok(op, path);
      assert.ok(op.responses['200']?.content?.['text/event-stream'], path);
      assert.ok(op.responses['4XX'] ?? op.responses['4xx'], path);
    }
    for (const hub of ['notifications', 'alarms']) {
      assert.ok(doc.paths[`/api/plcs/{plcId}/${hub}/ws/negotiate`]?.post, hub);
      assert.equal(doc.paths[`/api/plcs/{plcId}/${hub}/ws`], undefined, hub);
    }
  } finally {
    await app.close();
  }
});
