// One EtherCAT master drawn as its topology: the master, then its slaves in bus order following the wiring
// (the line continues through a slave's first downstream port, further ports open branches), each with its
// state, error flag, link and CRC counters per port.
import type { WiredSlaveView } from '../api/types.ts';
import type { Bus } from '../live/ethercat-feed.ts';

const portOrder = ['A', 'B', 'C', 'D'] as const;

/** A slave as drawn: the port it is reached through, and the branches leaving its other downstream ports. */
interface Node {
  slave: WiredSlaveView;
  via: string | undefined;
  branches: Array<{ port: string; line: Node[] }>;
}

/** The slaves reached from the master, as a line with branches; the rest (no wiring reported) after it. */
export function layout(slaves: readonly WiredSlaveView[]): { line: Node[]; unwired: WiredSlaveView[] } {
  const byAddress = new Map(slaves.map((s) => [s.address, s]));
  const seen = new Set<number>();
  const downstream = (s: WiredSlaveView) =>
    portOrder.flatMap((port) => {
      const n = s.ports[port];
      const next = typeof n === 'number' ? byAddress.get(n) : undefined;
      return next && !seen.has(next.address) ? [{ port, next }] : [];
    });
  const viaOf = (s: WiredSlaveView, from: number | 'master') => portOrder.find((p) => s.ports[p] === from);
  const walk = (start: WiredSlaveView, from: number | 'master'): Node[] => {
    const line: Node[] = [];
    let current: WiredSlaveView | undefined = start;
    let upstream = from;
    while (current && !seen.has(current.address)) {
      const here: WiredSlaveView = current;
      seen.add(here.address);
      const [first, ...rest] = downstream(here);
      line.push({
        slave: here,
        via: viaOf(here, upstream),
        branches: rest.map(({ port, next }) => ({ port, line: walk(next, here.address) })),
      });
      upstream = here.address;
      current = first?.next;
    }
    return line;
  };
  const line = slaves
    .filter((s) => portOrder.some((p) => s.ports[p] === 'master'))
    .flatMap((s) => walk(s, 'master'));
  return { line, unwired: slaves.filter((s) => !seen.has(s.address)) };
}

const stateTone = (state: string): string =>
  state === 'OP' ? 'ok' : state === 'SAFEOP' || state === 'PREOP' ? 'warn' : 'bad';

function SlaveCard({ node }: { node: Node }) {
  const s = node.slave;
  const label = `Slave ${s.address} ${s.name}`;
  return (
    <li class="ecat-slave" data-slave={s.address}>
      <div
        class="ecat-node"
        role="group"
        aria-label={label}
        data-state={s.state}
        data-error={String(s.error)}
        data-link={s.link}
      >
        <div class="row">
          <strong class="mono">{s.address}</strong>
          <span>{s.name}</span>
          <span class={`badge ${stateTone(s.state)}`}>{s.state}</span>
          {s.error && <span class="badge bad">ERR</span>}
          <span class={`badge ${s.link === 'ok' ? 'ok' : 'bad'}`}>link {s.link}</span>
        </div>
        <div class="row small">
          <span class="muted">
            {s.type}
            {node.via ? `, in on port ${node.via}` : ''}
          </span>
          <span class="ecat-crc mono">
            CRC errors
            {portOrder.map((p) => (
              <span key={p} class={s.crcErrors[p] > 0 ? 'crc-bad' : undefined} data-port={p}>
                {p} {s.crcErrors[p]}
              </span>
            ))}
          </span>
        </div>
      </div>
      {node.branches.map((b) => (
        <div key={b.port} class="ecat-branch">
          <span class="muted small">port {b.port}</span>
          <Line nodes={b.line} label={`Branch from port ${b.port} of ${s.address}`} />
        </div>
      ))}
    </li>
  );
}

function Line({ nodes, label }: { nodes: Node[]; label: string }) {
  return (
    <ol class="ecat-line" aria-label={label}>
      {nodes.map((n) => (
        <SlaveCard key={n.slave.address} node={n} />
      ))}
    </ol>
  );
}

export function BusTopology({ bus }: { bus: Bus }) {
  const { master } = bus;
  const { line, unwired } = layout(bus.slaves);
  const titleId = `master-${master.deviceId}`;
  const same = master.currentState === master.requestedState;
  return (
    <section class="panel ecat-bus" aria-labelledby={titleId} data-master={master.deviceId}>
      <div class="ecat-master" data-state={master.currentState}>
        <h2 id={titleId}>
          {master.name} <small class="muted">device {master.deviceId}</small>
        </h2>
        <div class="row">
          <span class={`badge ${stateTone(master.currentState)}`}>{master.currentState}</span>
          {!same && <span class="muted">requested {master.requestedState}</span>}
          <span class="muted">
            AMS NetId <span class="mono">{master.amsNetId}</span>, {master.slaveCount} slave
            {master.slaveCount === 1 ? '' : 's'}
          </span>
        </div>
      </div>
      <Line nodes={line} label={`Slaves of ${master.name} in bus order`} />
      {unwired.length > 0 && (
        <>
          <p class="muted small">Slaves without reported wiring, in bus order:</p>
          <Line
            nodes={unwired.map((slave) => ({ slave, via: undefined, branches: [] }))}
            label={`Slaves of ${master.name} without wiring`}
          />
        </>
      )}
    </section>
  );
}
