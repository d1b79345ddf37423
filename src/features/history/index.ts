// The history feature: records PLC values and alarm transitions into SQLite or PostgreSQL and answers trend
// queries. Its public face: what the app and other features import.
export { historyRoutes } from './routes.ts';
export { historyQueriesKey, type HistoryQueries } from './query.ts';
