// After `reconnected` each subscribed symbol's current value arrives once, on SSE and on the hub, on both drivers
// (the Real one loses its TCP connection to sim-ads and finds it again): the restored subscriptions deliver it,
// nothing else repeats it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { Signal } from '../../helpers/signal.ts';
import { testDrivers } from '../variables/fixture.ts';
import { authHeaders, RawSse, sseUrl, startStreamApp, waitLimitMs, type SseEvent } from './clients.ts';

const symbols = ['MAIN.nA', 'MAIN.nB', 'MAIN.fSpeed'];

interface Change {
  symbol: string;
  value: unknown;
}

/** How often each symbol changed in `changes`. */
function counts(changes: readonly Change[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of changes) out[c.symbol] = (out[c.symbol] ?? 0) + 1;
  return out;
}

for (const driver of testDrivers) {
  describe(`one value per symbol after reconnected (${driver} driver)`, () => {
    it('SSE: nA (changed while down) and nB (unchanged) once each, then the next change', async () => {
      const s = await startStreamApp(driver);
      const c = await new RawSse(sseUrl(s.base, symbols), authHeaders(s.token)).opened();
      try {
        for (const symbol of symbols)
          await c.next((e) => e.event === 'change' && (e.data as Change).symbol === symbol);
        await s.plc.disconnect();
        await c.next((e) => e.event === 'disconnected');
        s.plc.plc.write('MAIN.nA', 5);
        await s.plc.reconnect();
        const up = await c.next((e) => e.event === 'reconnected');
        const from = c.events.indexOf(up) + 1;
        const isChange = (symbol: string, value: unknown) => (e: SseEvent) =>
          e.event === 'change' && (e.data as Change).symbol === symbol && (e.data as Change).value === value;
        await c.next(isChange('MAIN.nA', 5), from);
        await c.next(isChange('MAIN.nB', 2), from);
        await c.next(isChange('MAIN.fSpeed', 0.5), from);
        // A change made after the fresh values marks the end: anything repeated would have come before it.
        await s.plc.target.write('MAIN.fSpeed', 9.5);
        const marker = await c.next(isChange('MAIN.fSpeed', 9.5), from);
        const after = c.events
          .slice(from, c.events.indexOf(marker))
          .filter((e) => e.event === 'change')
          .map((e) => e.data as Change);
        assert.deepEqual(
          counts(after),
          { 'MAIN.nA': 1, 'MAIN.nB': 1, 'MAIN.fSpeed': 1 },
          JSON.stringify(after),
        );
      } finally {
        c.close();
        await s.close();
      }
    });

    it('hub: one VariableChanged per symbol after Reconnected', async () => {
      const s = await startStreamApp(driver);
      const received: Array<{ method: string; arg: Change }> = [];
      const signal = new Signal();
      const connection = new HubConnectionBuilder()
        .withUrl(`${s.base}/api/plcs/plc1/notifications/ws`, {
          accessTokenFactory: () => s.token,
          transport: HttpTransportType.WebSockets,
        })
        .configureLogging(LogLevel.None)
        .build();
      for (const method of ['VariableChanged', 'Disconnected', 'Reconnected']) {
        connection.on(method, (arg: Change) => {
          received.push({ method, arg });
          signal.notify();
        });
      }
      const next = (match: (r: { method: string; arg: Change }) => boolean, from = 0) =>
        signal.until(
          () => received.slice(from).find(match),
          waitLimitMs,
          () => `hub message after ${JSON.stringify(received)}`,
        );
      const changed = (symbol: string, value?: unknown) => (r: { method: string; arg: Change }) =>
        r.method === 'VariableChanged' &&
        r.arg.symbol === symbol &&
        (value === undefined || r.arg.value === value);
      await connection.start();
      try {
        await connection.invoke('Subscribe', symbols);
        for (const symbol of symbols) await next(changed(symbol));
        await s.plc.disconnect();
        await next((r) => r.method === 'Disconnected');
        s.plc.plc.write('MAIN.nB', 12);
        await s.plc.reconnect();
        const from = received.indexOf(await next((r) => r.method === 'Reconnected')) + 1;
        await next(changed('MAIN.nA', 1), from);
        await next(changed('MAIN.nB', 12), from);
        await next(changed('MAIN.fSpeed', 0.5), from);
        await s.plc.target.write('MAIN.nA', 77);
        const marker = await next(changed('MAIN.nA', 77), from);
        const after = received
          .slice(from, received.indexOf(marker))
          .filter((r) => r.method === 'VariableChanged')
          .map((r) => r.arg);
        assert.deepEqual(
          counts(after),
          { 'MAIN.nA': 1, 'MAIN.nB': 1, 'MAIN.fSpeed': 1 },
          JSON.stringify(after),
        );
      } finally {
        await connection.stop();
        await s.close();
      }
    });
  });
}
