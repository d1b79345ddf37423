// History routes (History.Enabled): the recorded past of a PLC's symbols as buckets, raw pages or CSV, and the
// list of what is recorded. Owns the store, the writer, the recorders, retention and the alarm archive.
import { Readable } from 'node:stream';
import { ConfigError } from '../../config/schema.ts';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../http/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { ServiceKey } from '../../http/service-directory.ts';
import { alarmArchiveKey } from '../alarms/archive.ts';
import type { JournalEntry } from '../alarms/journal.ts';
import { alarmServiceKey } from '../alarms/service.ts';
import { notificationServiceKey } from '../notifications/service.ts';
import { HistoryQueries } from './query.ts';
import { PlcRecorder } from './recorder.ts';
import { Retention } from './retention.ts';
import { HistoryQuery, HistoryResultSchema, RecordedSymbols } from './schemas.ts';
import { createHistoryStore } from './store/open-store.ts';
import { HistoryWriter } from './writer.ts';

/** The history queries, for the other front doors (MCP). */
export const historyQueriesKey = new ServiceKey<HistoryQueries>('history');

/** How often cyclic symbols and quiet ones (MaxIntervalSeconds) are looked at. */
const tickMs = 100;
/** How often retention runs. */
const retentionMs = 3_600_000;

export const historyRoutes: FeaturePlugin = async (app, context) => {
  const { config, registry, services, now, metrics } = context;
  const settings = config.settings.History;
  if (!settings.Enabled) return;
  const store = createHistoryStore(settings, config.contentRoot);
  await store.open();
  const writer = new HistoryWriter({
    store,
    flushIntervalMs: settings.FlushIntervalMs,
    bufferLength: settings.BufferLength,
    log: app.log,
    metrics,
  });
  const queries = new HistoryQueries(store, {
    maxSymbols: settings.MaxSymbolsPerQuery,
    maxPoints: settings.MaxPoints,
  });
  services.provide(historyQueriesKey, queries);
  const retention = new Retention(store, settings.RetentionDays, now, metrics);

  const notifications = services.find(notificationServiceKey);
  if (!notifications) throw new Error('History needs the notifications feature registered first.');
  const recorders = new Map<string, PlcRecorder>();
  for (const [id, own] of Object.entries(settings.Targets)) {
    const target = registry.list().find((t) => t.id.toLowerCase() === id.toLowerCase());
    if (!target) continue;
    recorders.set(
      target.id,
      new PlcRecorder(target, own.Symbols, { observe: notifications, store, writer, now, log: app.log }),
    );
  }

  // Alarm transitions of every monitored PLC go to the store too, and older windows are read back from it.
  services.provide(alarmArchiveKey, {
    read: async (plcId, from, to, after, limit) =>
      (await store.alarms(plcId, from, to, after, limit)).map((r): JournalEntry => ({
        ...(JSON.parse(r.entry) as Omit<JournalEntry, 'seq'>),
        seq: r.seq,
      })),
  });
  const offAlarms: Array<() => void> = [];

  let ticker: NodeJS.Timeout | undefined;
  let retentionTimer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    const problems = (await Promise.all([...recorders.values()].map((r) => r.start()))).flat();
    if (problems.length > 0) {
      await Promise.all([...recorders.values()].map((r) => r.stop()));
      throw new ConfigError(problems);
    }
    const alarms = config.features.Alarms ? services.find(alarmServiceKey) : undefined;
    for (const plcId of alarms?.plcIds() ?? []) {
      offAlarms.push(
        alarms!.monitor(plcId).onTransitions((entries) => {
          for (const e of entries) {
            writer.alarm({ plcId, seq: e.seq, at: Date.parse(e.at), entry: JSON.stringify(e) });
          }
        }),
      );
    }
    ticker = setInterval(() => {
      for (const r of recorders.values()) r.tick();
    }, tickMs);
    ticker.unref();
    retentionTimer = setInterval(() => void retention.run().catch(() => undefined), retentionMs);
    retentionTimer.unref();
    void retention
      .run()
      .catch((err: unknown) => app.log.warn({ err: (err as Error).message }, 'history retention failed'));
  });
  // Graceful shutdown: stop recording, write what is buffered, then close the store.
  app.addHook('onClose', async () => {
    clearInterval(ticker);
    clearInterval(retentionTimer);
    for (const off of offAlarms) off();
    await Promise.all([...recorders.values()].map((r) => r.stop()));
    await writer.close();
    await store.close();
  });

  const recorded = {
    serves: (plcId: string) => recorders.has(plcId),
    notServed: (plcId: string) => `Nothing is recorded for PLC '${plcId}' (History.Targets).`,
  };
  const tags = ['History'];

  app.get(
    '/api/plcs/:plcId/history',
    {
      schema: {
        tags,
        summary: 'Recorded values of symbols over a window: buckets for numbers, raw changes otherwise, gaps',
        description:
          'Numbers answer at most maxPoints buckets { t, min, max, first, last, count } (a one-sample spike ' +
          'survives); other types their raw changes. aggregate=raw pages through samples with nextCursor. ' +
          '`Accept: text/csv` streams the same as CSV. 404 SYMBOL_NOT_RECORDED for a symbol not recorded.',
        params: PlcIdParams,
        querystring: HistoryQuery,
        response: envelopeResponses(HistoryResultSchema),
      },
      config: { policy: 'ReadAccess', plcScoped: recorded, limit: 'HistoryQueries' },
    },
    async (request, reply) => {
      const plcId = targetOf(request).id;
      const q = request.query;
      const query = { ...q, cursor: q.cursor };
      if (request.headers.accept?.includes('text/csv')) {
        // Errors (bad window, unknown symbol) surface before the first byte: the first page is read first.
        const lines = queries.csv(plcId, query);
        const first = await lines.next();
        async function* rest(): AsyncGenerator<string> {
          if (first.done !== true) yield first.value;
          yield* lines;
        }
        return reply.type('text/csv; charset=utf-8').send(Readable.from(rest()) as never);
      }
      return ok(await queries.query(plcId, query));
    },
  );

  app.get(
    '/api/plcs/:plcId/history/symbols',
    {
      schema: {
        tags,
        summary: 'What is recorded on a PLC, with its settings and first and last sample time',
        params: PlcIdParams,
        response: envelopeResponses(RecordedSymbols),
      },
      config: { policy: 'ReadAccess', plcScoped: recorded, limit: 'HistoryQueries' },
    },
    async (request) => {
      const series = await queries.symbols(targetOf(request).id);
      return ok({
        items: series.map((s) => ({
          symbol: s.symbol,
          type: s.typeName,
          kind: s.kind,
          settings: JSON.parse(s.settings) as unknown,
          firstSample: s.first === null ? null : new Date(s.first).toISOString(),
          lastSample: s.last === null ? null : new Date(s.last).toISOString(),
        })),
      });
    },
  );
};
