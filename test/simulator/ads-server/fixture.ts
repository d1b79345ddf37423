// Shared fixture: a program with every supported type, a server on a free loopback port, ads-client setup.
import { EventEmitter } from 'node:events';
import { Client } from 'ads-client';
import { ProgramBuilder, type Program } from '../../../src/simulator/engine/program.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/plc.ts';
import {
  createAdsServer,
  type AdsServer,
  type AdsServerAddress,
} from '../../../src/simulator/ads-server/server.ts';

export const primitiveSymbols = {
  'MAIN.bFlag': ['BOOL', true],
  'MAIN.nByte': ['BYTE', 200],
  'MAIN.nWord': ['WORD', 60000],
  'MAIN.nDword': ['DWORD', 4000000000],
  'MAIN.nLword': ['LWORD', '18446744073709551615'],
  'MAIN.nSint': ['SINT', -100],
  'MAIN.nUsint': ['USINT', 250],
  'MAIN.nInt': ['INT', -12345],
  'MAIN.nUint': ['UINT', 54321],
  'MAIN.nDint': ['DINT', -2000000000],
  'MAIN.nUdint': ['UDINT', 3000000000],
  'MAIN.nLint': ['LINT', '-9007199254740993'],
  'MAIN.nUlint': ['ULINT', '9007199254740993'],
  'MAIN.fReal': ['REAL', 1.5],
  'MAIN.fLreal': ['LREAL', -2.25e300],
  'MAIN.tTime': ['TIME', 90000],
  'MAIN.tLtime': ['LTIME', '1000000000'],
  'MAIN.dDate': ['DATE', '2024-05-01T00:00:00.000Z'],
  'MAIN.dtStamp': ['DT', '2024-05-01T12:34:56.000Z'],
  'MAIN.tTod': ['TOD', 45296000],
} as const;

/** Every supported type: primitives, strings, enums, nested structs, arrays of structs, 2-D arrays, an FB with RPC. */
export function buildProgram(extra?: (b: ProgramBuilder) => void): Program {
  const b = new ProgramBuilder();
  b.enum('E_Mode', [
    { name: 'IDLE', value: 0 },
    { name: 'RUN', value: 1 },
    { name: 'FAULT', value: 7 },
  ]);
  b.enum(
    'E_AckResult',
    [
      { name: 'SUCCESS', value: 0 },
      { name: 'NOT_FOUND', value: 1 },
    ],
    'DINT',
  );
  b.struct('ST_Point', [
    { name: 'x', type: 'LREAL' },
    { name: 'y', type: 'LREAL' },
  ]);
  b.struct('ST_Axis', [
    { name: 'sId', type: 'STRING(15)' },
    { name: 'pos', type: 'ST_Point' },
    { name: 'bEnabled', type: 'BOOL' },
    { name: 'eMode', type: 'E_Mode' },
  ]);
  b.functionBlock(
    'FB_Alarms',
    [
      { name: 'nAcked', type: 'UDINT' },
      { name: 'sLastKey', type: 'STRING(80)' },
    ],
    [
      {
        name: 'AcknowledgeAlarm',
        returnType: 'BOOL',
        parameters: [
          { name: 'sKey', type: 'STRING(80)' },
          { name: 'nCount', type: 'UDINT', direction: 'out' },
        ],
        implementation: (ctx, inputs) => {
          const key = typeof inputs.sKey === 'string' ? inputs.sKey : '';
          const base = `${ctx.instancePath}`;
          const acked = Number(ctx.plc.read(`${base}.nAcked`)) + 1;
          ctx.plc.write(`${base}.nAcked`, acked);
          ctx.plc.write(`${base}.sLastKey`, key);
          return { returnValue: key !== '', outputs: { nCount: acked } };
        },
      },
      {
        name: 'Lookup',
        returnType: 'E_AckResult',
        parameters: [{ name: 'nId', type: 'DINT' }],
        implementation: (_ctx, inputs) => ({ returnValue: inputs.nId === 1 ? 'SUCCESS' : 'NOT_FOUND' }),
      },
      { name: 'Hidden', returnType: 'BOOL', attributes: [], implementation: () => ({ returnValue: true }) },
    ],
  );
  // Symbols declared here come first, so they move every other symbol (a changed download).
  extra?.(b);
  for (const [name, [type, value]] of Object.entries(primitiveSymbols)) b.symbol(name, type, { value });
  b.symbol('MAIN.sText', 'STRING(80)', { value: 'Grüße' });
  b.symbol('MAIN.wsText', 'WSTRING(20)', { value: 'Ωmega ✓' });
  b.symbol('MAIN.eMode', 'E_Mode', { value: 'RUN' });
  b.symbol('MAIN.stAxis', 'ST_Axis', {
    value: { sId: 'X1', pos: { x: 1, y: 2 }, bEnabled: true, eMode: 'FAULT' },
  });
  b.symbol('MAIN.aAxes', 'ARRAY [1..3] OF ST_Axis');
  b.symbol('MAIN.aGrid', 'ARRAY [0..1,1..3] OF INT', {
    value: [
      [1, 2, 3],
      [4, 5, 6],
    ],
  });
  b.symbol('MAIN.aWords', 'ARRAY [0..9] OF INT');
  b.symbol('GVL.fbAlarms', 'FB_Alarms');
  b.symbol('GVL.nCounter', 'DINT', { comment: 'changes in tests' });
  return b.build();
}

export interface Harness {
  plc: SimulatedPlc;
  server: AdsServer;
  address: AdsServerAddress;
  /** The server's client events by kind ('connected', 'closed', 'stalled'), with the client id. */
  clientEvents: EventEmitter;
  /** A connected ads-client; router mode unless a local address is given. */
  connect(settings?: Record<string, unknown>): Promise<Client>;
  close(): Promise<void>;
}

export async function startHarness(
  options: { program?: Program; plc?: SimulatedPlc; tickMs?: number } = {},
): Promise<Harness> {
  const plc = options.plc ?? new SimulatedPlc(options.program ?? buildProgram());
  const clientEvents = new EventEmitter();
  const server = createAdsServer({
    plc,
    port: 0,
    tickMs: options.tickMs ?? 5,
    onClient: (event) => clientEvents.emit(event.kind, event.id),
    onError: (err) => {
      throw err;
    },
  });
  const address = await server.listen();
  const clients: Client[] = [];
  return {
    plc,
    server,
    address,
    clientEvents,
    async connect(settings = {}) {
      const client = new Client({
        targetAmsNetId: '127.0.0.1.1.1',
        targetAdsPort: 851,
        routerAddress: '127.0.0.1',
        routerTcpPort: address.port,
        autoReconnect: false,
        hideConsoleWarnings: true,
        timeoutDelay: 3000,
        ...settings,
      });
      await client.connect();
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) {
        if (c.connection.connected) await c.disconnect().catch(() => undefined);
      }
      await server.close();
    },
  };
}
