// The admin view's MQTT panel: broker sessions and their state, the devices (PLCs) published, and the counters.
import { api, describeError } from '../api/http.ts';
import { usePoll } from '../live/use-live.ts';

interface MqttStatus {
  enabled: boolean;
  mode?: string;
  url?: string;
  /** Sparkplug: this gateway's edge node (in cluster mode, this replica's). */
  edgeNodeId?: string;
  /** Cluster mode: the replica answering; the panel shows what this replica publishes. */
  replicaId?: string;
  sessions: Array<{ clientId: string; plcId?: string; state: string; since: string; lastError?: string }>;
  devices: Array<{ plcId: string; online: boolean; metrics: number }>;
  messages: number;
  bytes: number;
  buffered: number;
  dropped: number;
}

export function MqttPanel() {
  const status = usePoll(() => api.get<MqttStatus>('/api/admin/mqtt'), 2000, 'mqtt');
  const s = status.data;
  return (
    <section aria-labelledby="mqtt-title" class="panel">
      <h2 id="mqtt-title">MQTT</h2>
      {status.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(status.error)}
        </p>
      )}
      {s && !s.enabled && <p>MQTT publishing is off (Mqtt.Enabled).</p>}
      {s?.enabled && (
        <>
          <p>
            {s.mode}
            {s.edgeNodeId !== undefined && (
              <>
                {' '}
                as edge node <span class="mono">{s.edgeNodeId}</span>
              </>
            )}{' '}
            to <span class="mono">{s.url}</span>
            {s.replicaId !== undefined && <> (replica {s.replicaId})</>}: {s.messages} messages, {s.bytes}{' '}
            bytes published, {s.buffered} changes buffered, {s.dropped} dropped.
          </p>
          <div class="table-wrap">
            <table aria-label="MQTT sessions">
              <thead>
                <tr>
                  <th scope="col">Client id</th>
                  <th scope="col">State</th>
                  <th scope="col">Since</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {s.sessions.map((x) => (
                  <tr key={x.clientId} data-state={x.state}>
                    <td class="mono">{x.clientId}</td>
                    <td>{x.state}</td>
                    <td>{new Date(x.since).toLocaleTimeString()}</td>
                    <td>{x.lastError ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div class="table-wrap">
            <table aria-label="MQTT devices">
              <thead>
                <tr>
                  <th scope="col">PLC</th>
                  <th scope="col">Published</th>
                  <th scope="col">Symbols</th>
                </tr>
              </thead>
              <tbody>
                {s.devices.map((d) => (
                  <tr key={d.plcId}>
                    <td>{d.plcId}</td>
                    <td>{d.online ? 'online' : 'offline'}</td>
                    <td class="num">{d.metrics}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
