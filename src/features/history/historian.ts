// The running historian: the store, the writer, one recorder per recorded PLC, retention, and the alarm archive
// (every transition of a monitored PLC is written, and older windows are read back); stopped in order on close.
import { ConfigError } from '../../config/schema.ts';
import type { FeatureApp, FeatureContext } from '../../feature-kit/feature-context.ts';
import { alarmArchiveKey, alarmServiceKey, type JournalEntry } from '../alarms/index.ts';
import { notificationServiceKey } from '../notifications/index.ts';
import { HistoryQueries } from './query.ts';
import { PlcRecorder } from './recorder.ts';
import { Retention } from './retention.ts';
import { createHistoryStore } from './store/open-store.ts';
import { HistoryWriter } from './writer.ts';

/** How often cyclic symbols and quiet ones (MaxIntervalSeconds) are looked at. */
const tickMs = 100;
/** How often retention runs. */
const retentionMs = 3_600_000;

export interface Historian {
  readonly queries: HistoryQueries;
  /** Recorded PLCs by plcId. */
  readonly recorders: ReadonlyMap<string, PlcRecorder>;
}

export async function startHistorian(app: FeatureApp, context: FeatureContext): Promise<Historian> {
  const { config, registry, services, now, metrics } = context;
  const settings = config.settings.History;
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
  const runRetention = (): void =>
    void retention
      .run()
      .catch((err: unknown) => app.log.warn({ err: (err as Error).message }, 'history retention failed'));
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
    retentionTimer = setInterval(runRetention, retentionMs);
    retentionTimer.unref();
    runRetention();
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
  return { queries, recorders };
}
