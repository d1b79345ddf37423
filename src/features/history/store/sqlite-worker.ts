// The SQLite history's writer thread: its own connection to the file, running each write the store posts, one at a
// time, and answering with the result or the error message.
import { parentPort, workerData } from 'node:worker_threads';
import { deleteOld, openSqlite, upsertSeries, writeBatch } from './sqlite-writes.ts';
import type { WriterCall, WriterReply } from './sqlite-writer.ts';

const port = parentPort;
if (port === null) throw new Error('sqlite-worker runs as a worker thread.');
const db = openSqlite((workerData as { path: string }).path);

port.on('message', (call: WriterCall) => {
  let reply: WriterReply;
  try {
    switch (call.op) {
      case 'series':
        reply = { id: call.id, result: upsertSeries(db, ...call.args) };
        break;
      case 'write':
        writeBatch(db, call.batch);
        reply = { id: call.id, result: 0 };
        break;
      case 'deleteBefore':
        reply = { id: call.id, result: deleteOld(db, call.before, call.limit) };
        break;
      case 'close':
        db.close();
        reply = { id: call.id, result: 0 };
        break;
    }
  } catch (err) {
    reply = { id: call.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
port.postMessage({ id: 0, result: 0 } satisfies WriterReply);
