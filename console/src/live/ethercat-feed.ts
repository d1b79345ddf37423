// One PLC's EtherCAT buses, kept live: the masters and their wiring are read once, then the notification stream
// (`?ethercat=true`) sends every slave's current state and each change (state, error, link, CRC crossing the
// threshold), applied in place. Master states and the bus status are not streamed: they are read again after
// each change, and every few seconds. A gateway or PLC without the stream is polled instead.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, describeError, loadReadiness, plcPath } from '../api/http.ts';
import type { EtherCatChange, HealthStatus, MasterView, TopologyView } from '../api/types.ts';
import { openEventStream, readEvents } from './sse.ts';

/** A master with its slaves in bus order, each with the neighbour on every port. */
export interface Bus {
  master: MasterView;
  slaves: TopologyView['slaves'];
}

export type BusFeedStatus = 'loading' | 'live' | 'reconnecting' | 'polling' | 'plc-down' | 'stopped';

export interface BusFeed {
  buses: Bus[] | undefined;
  /** The PLC's `ethercat` readiness status; undefined while unknown or for a PLC without masters. */
  health: HealthStatus | undefined;
  status: BusFeedStatus;
  error: string | undefined;
  /** Slave changes applied from the stream since the view opened. */
  changes: number;
}

const pollMs = 2000;
const masterRefreshMs = 5000;
const initial: BusFeed = {
  buses: undefined,
  health: undefined,
  status: 'loading',
  error: undefined,
  changes: 0,
};

async function loadBuses(plcId: string): Promise<Bus[]> {
  const masters = await api.get<MasterView[]>(plcPath(plcId, 'ethercat', 'masters'));
  return Promise.all(
    masters.map(async (master) => ({
      master,
      slaves: (
        await api.get<TopologyView>(
          plcPath(plcId, 'ethercat', 'masters', String(master.deviceId), 'topology'),
        )
      ).slaves,
    })),
  );
}

async function loadHealth(plcId: string): Promise<HealthStatus | undefined> {
  const check = (await loadReadiness()).checks.find((c) => c.name === 'ethercat');
  const status = check?.data?.[plcId];
  return typeof status === 'string' ? (status as HealthStatus) : undefined;
}

function applyChange(buses: Bus[], change: EtherCatChange): Bus[] {
  return buses.map((bus) =>
    bus.master.deviceId !== change.masterId
      ? bus
      : {
          ...bus,
          slaves: bus.slaves.map((s) => (s.address === change.address ? { ...s, ...change.slave } : s)),
        },
  );
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });

/** The live buses of `plcId` while the calling component is shown. */
export function useEtherCat(plcId: string): BusFeed {
  const [feed, setFeed] = useState<BusFeed>(initial);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let state = initial;
    const publish = (next: Partial<BusFeed>): void => {
      if (signal.aborted) return;
      state = { ...state, ...next };
      setFeed(state);
    };
    setFeed(initial);

    // Masters and health again, coalesced: changes that arrive while a reading runs cause one more.
    let refreshing: Promise<void> | undefined;
    let again = false;
    const refresh = (): void => {
      if (refreshing) return void (again = true);
      refreshing = (async () => {
        do {
          again = false;
          try {
            const [masters, health] = await Promise.all([
              api.get<MasterView[]>(plcPath(plcId, 'ethercat', 'masters')),
              loadHealth(plcId),
            ]);
            const buses = state.buses?.map((bus) => ({
              ...bus,
              master: masters.find((m) => m.deviceId === bus.master.deviceId) ?? bus.master,
            }));
            publish({ buses, health });
          } catch (err) {
            publish({ error: describeError(err) });
          }
        } while (again && !signal.aborted);
        refreshing = undefined;
      })();
    };

    const reload = async (): Promise<void> => {
      const [buses, health] = await Promise.all([loadBuses(plcId), loadHealth(plcId)]);
      publish({ buses, health, error: undefined });
    };

    const poll = async (): Promise<void> => {
      publish({ status: 'polling' });
      while (!signal.aborted) {
        await reload().catch((err: unknown) => publish({ error: describeError(err) }));
        await sleep(pollMs, signal);
      }
    };

    const follow = async (): Promise<void> => {
      let attempt = 0;
      const ticker = setInterval(refresh, masterRefreshMs);
      signal.addEventListener('abort', () => clearInterval(ticker), { once: true });
      while (!signal.aborted) {
        try {
          // The wiring first: the stream then brings every slave up to date, so nothing between is missed.
          await reload();
          const path = `${plcPath(plcId, 'notifications', 'sse')}?ethercat=true`;
          const response = await openEventStream(path, signal);
          attempt = 0;
          await readEvents(
            response,
            (e) => {
              if (e.event === 'ethercat' && state.buses !== undefined) {
                const change = JSON.parse(e.data) as EtherCatChange;
                publish({
                  buses: applyChange(state.buses, change),
                  changes: state.changes + 1,
                  status: 'live',
                });
                refresh();
              } else if (e.event === 'subscribed' || e.event === 'reconnected') {
                publish({ status: 'live', error: undefined });
              } else if (e.event === 'disconnected') {
                publish({ status: 'plc-down' });
              } else if (e.event === 'gap') {
                // Events were dropped for this client: read everything again.
                void reload().catch((err: unknown) => publish({ error: describeError(err) }));
              }
            },
            signal,
          );
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof ApiError) {
            // No stream for this gateway (Notifications off) or this PLC (its EtherCAT notifications off).
            if (err.status === 501 || err.status === 400) {
              clearInterval(ticker);
              return poll();
            }
            if (err.status === 401 || err.status === 403 || err.status === 404) {
              return publish({ status: 'stopped', error: describeError(err) });
            }
            // Stream openings are rate-limited per user: back off for longer than the usual retry.
            if (err.status === 429) attempt = 6;
          }
          publish({ error: describeError(err) });
        }
        if (signal.aborted) return;
        publish({ status: 'reconnecting' });
        await sleep(Math.min(250 * 2 ** attempt++, 15_000), signal);
      }
    };

    void follow();
    return () => controller.abort();
  }, [plcId]);
  return feed;
}
