// Builds the configured history store: SQLite on a file under the content root, or PostgreSQL.
import { isAbsolute, resolve } from 'node:path';
import type { HistoryConfig } from '../../../config/schema.ts';
import { PostgresHistoryStore } from './postgres-store.ts';
import { SqliteHistoryStore } from './sqlite-store.ts';
import type { HistoryStore } from './types.ts';

export function createHistoryStore(settings: HistoryConfig, contentRoot: string): HistoryStore {
  if (settings.Store === 'postgres') {
    return new PostgresHistoryStore(settings.Postgres.ConnectionString ?? '');
  }
  const path = isAbsolute(settings.Path) ? settings.Path : resolve(contentRoot, settings.Path);
  return new SqliteHistoryStore(path);
}
