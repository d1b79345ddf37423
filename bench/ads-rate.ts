// Shared by the ADS benchmarks: run an operation back to back for a while, and the ceiling of the simulator's
// ADS server, measured as ads-client reading one 4-byte value by handle.
import { Client } from 'ads-client';

/** Runs `op` back to back (with `parallel` in flight) for `seconds`; returns operations/s. */
export async function rate(op: () => Promise<unknown>, parallel: number, seconds: number): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (Date.now() < end) {
      await op();
      done++;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: parallel }, worker));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  return done / elapsed;
}

/** A connected ads-client on an ADS server listening on loopback `port` (the PLC at 127.0.0.1.1.1:851). */
export async function connectClient(port: number): Promise<Client> {
  const client = new Client({
    targetAmsNetId: '127.0.0.1.1.1',
    targetAdsPort: 851,
    routerTcpPort: port,
    autoReconnect: false,
    hideConsoleWarnings: true,
  });
  await client.connect();
  return client;
}

/** Reads/s of the 4-byte `path` by handle with `parallel` reads in flight, after a short warm-up. */
export async function handleReadRate(
  client: Client,
  path: string,
  parallel: number,
  seconds: number,
): Promise<number> {
  const handle = await client.createVariableHandle(path);
  try {
    await rate(() => client.readRawByHandle(handle), parallel, Math.min(1, seconds));
    return await rate(() => client.readRawByHandle(handle), parallel, seconds);
  } finally {
    await client.deleteVariableHandle(handle).catch(() => undefined);
  }
}

export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
