// Live values over each PLC's notification hub (SignalR): one hub connection per PLC, one subscription per
// symbol however many views show it (reference-counted), and a status per value so that a lost stream or a
// disconnected PLC is shown as such instead of a value that silently stopped moving.
import { signal, type Signal } from '@preact/signals';
import {
  HttpTransportType,
  HubConnectionBuilder,
  HubConnectionState,
  LogLevel,
  type HubConnection,
} from '@microsoft/signalr';
import { api, plcPath } from '../api/http.ts';
import { onSignOut, session } from '../auth/session.ts';

export interface Sample {
  value: unknown;
  type: string;
  timestamp: string;
}

/** live: values are current; the others mean the last value shown is stale. */
export type LiveStatus = 'connecting' | 'live' | 'plc-down' | 'lost' | 'error';

export interface LiveCell {
  readonly sample: Signal<Sample | undefined>;
  readonly status: Signal<LiveStatus>;
  readonly error: Signal<string | undefined>;
  /** Called with every sample (trends record them all, not just the last). */
  readonly listeners: Set<(sample: Sample) => void>;
}

interface Held {
  symbol: string;
  count: number;
  cell: LiveCell;
}

const retryMs = (attempt: number): number => Math.min(500 * 2 ** attempt, 8_000);

class PlcHub {
  private readonly held = new Map<string, Held>();
  private connection: HubConnection | undefined;
  private pending = false;
  private stopped = false;
  private attempt = 0;
  readonly status = signal<LiveStatus>('connecting');

  constructor(readonly plcId: string) {
    this.connect();
  }

  /**
   * A new hub connection for every attempt: one the server closed for good (an admin's termination, a
   * shutdown) cannot be started again from its own close callback.
   */
  private connect(): void {
    if (this.stopped) return;
    const connection = new HubConnectionBuilder()
      .withUrl(plcPath(this.plcId, 'notifications', 'ws'), {
        accessTokenFactory: () => session.value?.token ?? '',
        transport: HttpTransportType.WebSockets,
        skipNegotiation: true,
      })
      .withAutomaticReconnect({ nextRetryDelayInMilliseconds: (c) => retryMs(c.previousRetryCount) })
      .configureLogging(LogLevel.None)
      .build();
    this.connection = connection;
    connection.on('VariableChanged', (e: Sample & { symbol: string }) => {
      const held = this.held.get(e.symbol.toLowerCase());
      if (held === undefined) return;
      const sample = { value: e.value, type: e.type, timestamp: e.timestamp };
      held.cell.sample.value = sample;
      held.cell.status.value = 'live';
      held.cell.error.value = undefined;
      for (const listener of held.cell.listeners) listener(sample);
    });
    connection.on('SymbolError', (e: { symbol: string; code: string; message: string }) =>
      this.fail(e.symbol, `${e.code}: ${e.message}`),
    );
    connection.on('Disconnected', () => this.setAll('plc-down'));
    connection.on('Reconnected', () => this.setAll('connecting'));
    connection.on('Gap', () => void this.reread());
    connection.onreconnecting(() => this.setAll('lost'));
    connection.onreconnected(() => this.resubscribe());
    connection.onclose(() => {
      this.setAll('lost');
      this.retry();
    });
    this.status.value = 'connecting';
    connection.start().then(
      () => {
        this.attempt = 0;
        this.resubscribe();
      },
      () => {
        this.setAll('lost');
        this.retry();
      },
    );
  }

  private retry(): void {
    if (!this.stopped) setTimeout(() => this.connect(), retryMs(this.attempt++));
  }

  private setAll(status: LiveStatus): void {
    this.status.value = status === 'connecting' ? 'live' : status;
    for (const held of this.held.values()) {
      if (held.cell.status.value !== 'error') held.cell.status.value = status;
    }
  }

  private resubscribe(): void {
    this.status.value = 'live';
    const symbols = [...this.held.values()].map((h) => h.symbol);
    if (symbols.length > 0) void this.invoke('Subscribe', symbols);
  }

  private async invoke(method: 'Subscribe' | 'Unsubscribe', symbols: string[]): Promise<void> {
    const connection = this.connection;
    if (connection?.state !== HubConnectionState.Connected) return;
    try {
      await connection.invoke(method, symbols);
    } catch (err) {
      if (method === 'Subscribe') {
        const message = err instanceof Error ? err.message : String(err);
        for (const s of symbols) this.fail(s, message);
      }
    }
  }

  private fail(symbol: string, message: string): void {
    const held = this.held.get(symbol.toLowerCase());
    if (held === undefined) return;
    held.cell.status.value = 'error';
    held.cell.error.value = message;
  }

  /** After a gap the hub dropped changes: read every held symbol once so nothing shown is left behind. */
  private async reread(): Promise<void> {
    const symbols = [...this.held.values()].map((h) => h.symbol).slice(0, 100);
    if (symbols.length === 0) return;
    const query = symbols.map((s) => `paths=${encodeURIComponent(s)}`).join('&');
    const result = await api
      .get<{ values: Record<string, { value: unknown; typeName: string | null }> }>(
        `${plcPath(this.plcId, 'variables')}?${query}`,
      )
      .catch(() => undefined);
    for (const [symbol, entry] of Object.entries(result?.values ?? {})) {
      const held = this.held.get(symbol.toLowerCase());
      if (held !== undefined && entry.typeName !== null) {
        held.cell.sample.value = {
          value: entry.value,
          type: entry.typeName,
          timestamp: new Date().toISOString(),
        };
      }
    }
  }

  acquire(symbol: string): LiveCell {
    const key = symbol.toLowerCase();
    const existing = this.held.get(key);
    if (existing !== undefined) {
      existing.count++;
      return existing.cell;
    }
    const cell: LiveCell = {
      sample: signal(undefined),
      status: signal('connecting'),
      error: signal(undefined),
      listeners: new Set(),
    };
    this.held.set(key, { symbol, count: 1, cell });
    this.flushSoon();
    return cell;
  }

  release(symbol: string): void {
    const key = symbol.toLowerCase();
    const held = this.held.get(key);
    if (held === undefined || --held.count > 0) return;
    this.held.delete(key);
    void this.invoke('Unsubscribe', [held.symbol]);
  }

  /** Symbols acquired in one render are subscribed in one call. */
  private flushSoon(): void {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      const fresh = [...this.held.values()].filter((h) => h.cell.status.value === 'connecting');
      if (fresh.length > 0)
        void this.invoke(
          'Subscribe',
          fresh.map((h) => h.symbol),
        );
    });
  }

  stop(): void {
    this.stopped = true;
    void this.connection?.stop();
  }
}

const hubs = new Map<string, PlcHub>();

function hubOf(plcId: string): PlcHub {
  let hub = hubs.get(plcId);
  if (hub === undefined) {
    hub = new PlcHub(plcId);
    hubs.set(plcId, hub);
  }
  return hub;
}

/** Holds a live value until the returned release is called. */
export function acquireLive(plcId: string, symbol: string): { cell: LiveCell; release: () => void } {
  const hub = hubOf(plcId);
  return { cell: hub.acquire(symbol), release: () => hub.release(symbol) };
}

/** The hub connection's own status for a PLC (live, lost, ...). */
export function hubStatus(plcId: string): Signal<LiveStatus> {
  return hubOf(plcId).status;
}

onSignOut(() => {
  for (const hub of hubs.values()) hub.stop();
  hubs.clear();
});
