// EtherCAT diagnostics routes (flag EtherCatDiagnostics; ReadAccess, the counter reset WriteAccess and
// audited): masters, slaves, the wiring, one slave by address, and the reset of its error counters.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { auditParam } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { etherCatDiagnosticsKey } from './diagnostics.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import {
  LocatedSlaveSchema,
  MasterParams,
  MasterQuery,
  MasterSchema,
  SlaveParams,
  SlaveSchema,
  TopologySchema,
} from './schemas.ts';

const read = { feature: 'EtherCatDiagnostics', policy: 'ReadAccess', plcScoped: true } as const;
const tags = ['EtherCAT'];

export const etherCatRoutes: FeaturePlugin = (app, { config, services }) => {
  const { service, monitor } = services.get(etherCatDiagnosticsKey);
  if (config.features.EtherCatDiagnostics) {
    app.addHook('onReady', () => monitor.start());
    app.addHook('onClose', () => monitor.close());
  }

  app.get(
    '/api/plcs/:plcId/ethercat/masters',
    {
      schema: {
        tags,
        summary: 'EtherCAT masters with their states',
        params: PlcIdParams,
        response: envelopeResponses(Type.Array(MasterSchema)),
      },
      config: read,
    },
    async (request) => ok(await service.masters(targetOf(request))),
  );

  app.get(
    '/api/plcs/:plcId/ethercat/masters/:id',
    {
      schema: {
        tags,
        summary: 'One EtherCAT master (404 MASTER_NOT_FOUND)',
        params: MasterParams,
        response: envelopeResponses(MasterSchema),
      },
      config: read,
    },
    async (request) => ok(await service.master(targetOf(request), Number(request.params.id))),
  );

  app.get(
    '/api/plcs/:plcId/ethercat/masters/:id/slaves',
    {
      schema: {
        tags,
        summary: 'The master’s slaves in bus order: identity, state, error, link, CRC counters per port',
        params: MasterParams,
        response: envelopeResponses(Type.Array(SlaveSchema)),
      },
      config: read,
    },
    async (request) => ok(await service.slaves(targetOf(request), Number(request.params.id))),
  );

  app.get(
    '/api/plcs/:plcId/ethercat/masters/:id/topology',
    {
      schema: {
        tags,
        summary: 'The master’s slaves with the neighbour on each port (an address, master, or null)',
        params: MasterParams,
        response: envelopeResponses(TopologySchema),
      },
      config: read,
    },
    async (request) => ok(await service.topology(targetOf(request), Number(request.params.id))),
  );

  app.get(
    '/api/plcs/:plcId/ethercat/slaves/:address',
    {
      schema: {
        tags,
        summary: 'A slave by address on any master (?master= picks one; 400 when two masters have it)',
        params: SlaveParams,
        querystring: MasterQuery,
        response: envelopeResponses(LocatedSlaveSchema),
      },
      config: read,
    },
    async (request) =>
      ok(await service.slave(targetOf(request), Number(request.params.address), request.query.master)),
  );

  app.post(
    '/api/plcs/:plcId/ethercat/slaves/:address/reset-error-counters',
    {
      schema: {
        tags,
        summary:
          'Clears the slave’s CRC error counters (the write to its ESC registers); answers the slave after',
        params: SlaveParams,
        querystring: MasterQuery,
        response: envelopeResponses(LocatedSlaveSchema),
      },
      config: {
        ...read,
        policy: 'WriteAccess',
        audit: auditParam('ethercat.reset-error-counters', 'address'),
      },
    },
    async (request) =>
      ok(
        await service.resetErrorCounters(
          targetOf(request),
          Number(request.params.address),
          request.query.master,
        ),
      ),
  );
};
