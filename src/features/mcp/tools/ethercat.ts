// get_ethercat_health and get_ethercat_slave: the EtherCAT service the diagnostics routes call, read fresh from
// the PLC, so an agent can answer "is it the program or the bus?" without walking every master.
import { Type } from '@sinclair/typebox';
import {
  busStatus,
  crcTotal,
  etherCatDiagnosticsKey,
  etherCatSettings,
  masterView,
  needsAttention,
  slaveView,
} from '../../ethercat/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

const DeviceNumber = (description: string) => Type.Integer({ minimum: 0, maximum: 65535, description });

export function etherCatTools({ context }: ToolDeps): Tool[] {
  const { service } = context.services.get(etherCatDiagnosticsKey);
  return [
    defineTool({
      name: 'get_ethercat_health',
      title: 'EtherCAT health',
      description:
        'Bus status of one PLC (Healthy, Degraded: a slave not in OP, in error or over the CRC threshold; ' +
        'Unhealthy: a master not in OP or a link lost or missing) with the reason, its masters, and every ' +
        'slave that needs attention. Read from the PLC now.',
      input: Type.Object({ plcId: PlcId }, strict),
      mirrors: 'GET /api/plcs/:plcId/ethercat/masters',
      readOnly: true,
      run: async (_args, { target }) => {
        const plc = targetOf(target);
        const readings = await service.readAll(plc);
        const threshold = etherCatSettings(context.config, plc.id).crcErrorThreshold;
        const { status, reason } =
          readings.length === 0
            ? { status: 'Healthy' as const, reason: 'the PLC has no EtherCAT masters' }
            : busStatus(readings, threshold);
        return {
          plcId: plc.id,
          status,
          reason,
          crcErrorThreshold: threshold,
          masters: readings.map(masterView),
          attention: readings.flatMap((m) =>
            m.slaves
              .filter((s) => needsAttention(s, threshold))
              .map((s) => ({ masterId: m.deviceId, ...slaveView(s), crcTotal: crcTotal(s) })),
          ),
        };
      },
    }),
    defineTool({
      name: 'get_ethercat_slave',
      title: 'EtherCAT slave',
      description:
        'One slave by its fixed address, searched on every master of the PLC (or on master only): identity, ' +
        'state, error, link, CRC counters per port and the neighbour on each port.',
      input: Type.Object(
        {
          plcId: PlcId,
          address: DeviceNumber('Fixed (configured station) address, e.g. 1002'),
          master: Type.Optional(
            DeviceNumber('Device id of the master; needed when two masters have the address'),
          ),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/ethercat/slaves/:address',
      readOnly: true,
      run: ({ address, master }, { target }) => service.slave(targetOf(target), address, master),
    }),
  ];
}
