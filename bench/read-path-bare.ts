// The baseline of bench:read-path: what a bare fastify 5 server with one shared ads-client connection spends to
// answer the gateway's read routes in the same envelope. No auth, no logging, no metrics, no validation.
import { Client } from 'ads-client';
import Fastify from 'fastify';

type AdsSymbol = Awaited<ReturnType<Client['getSymbol']>>;

export async function serveBare(adsPort: number): Promise<string> {
  const client = new Client({
    targetAmsNetId: '127.0.0.1.1.1',
    targetAdsPort: 851,
    routerTcpPort: adsPort,
    autoReconnect: false,
    hideConsoleWarnings: true,
  });
  await client.connect();
  // ads-client caches symbols too; this map saves its lookup on the batch route.
  const symbols = new Map<string, AdsSymbol>();
  const symbolOf = async (path: string): Promise<AdsSymbol> => {
    let symbol = symbols.get(path);
    if (symbol === undefined) {
      symbol = await client.getSymbol(path);
      symbols.set(path, symbol);
    }
    return symbol;
  };

  const app = Fastify({ logger: false });
  app.get<{ Params: { '*': string } }>('/api/plcs/:plcId/variables/*', async (request) => {
    const path = request.params['*'];
    const result = await client.readValue(path);
    const data = {
      symbol: path,
      value: result.value,
      typeName: result.symbol.type,
      timestamp: new Date().toISOString(),
    };
    return { data, error: null };
  });
  app.get<{ Querystring: { paths: string | string[] } }>('/api/plcs/:plcId/variables', async (request) => {
    const q = request.query.paths;
    const paths = typeof q === 'string' ? [q] : q;
    const found = await Promise.all(paths.map(symbolOf));
    const raw = await client.readRawMulti(
      found.map((s) => ({ indexGroup: s.indexGroup, indexOffset: s.indexOffset, size: s.size })),
    );
    const values: Record<string, { symbol: string; value: unknown; typeName: string }> = {};
    for (let i = 0; i < paths.length; i++) {
      const symbol = found[i]!;
      const data = raw[i]?.value;
      if (data === undefined) throw new Error(`${paths[i]!}: read failed`);
      values[paths[i]!] = {
        symbol: paths[i]!,
        value: await client.convertFromRaw(data, symbol.type),
        typeName: symbol.type,
      };
    }
    return { data: { values }, error: null };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}
