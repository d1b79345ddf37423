// Alarm streams (flag Alarms, ReadAccess): SSE per PLC and fleet-wide, and the per-PLC SignalR hub pushing
// AlarmTransition and AlarmShelving. Each is a registered connection (connection limits, admin listing and termination, drops
// reported as `gap`); SSE opening also spends NotificationConnections, shared with the notification SSE.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, targetOf } from '../../guards/install-guards.ts';
import { canAccessPlc } from '../../guards/principal.ts';
import { ErrorEnvelope } from '../../http/envelope.ts';
import type { FeatureApp, FeatureContext } from '../../feature-kit/feature-context.ts';
import type { PlcScope } from '../../guards/route-options.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { openSse } from '../../http/streams/open-sse.ts';
import { registerHub } from '../../http/streams/signalr/hub-routes.ts';
import { openAlarmFeed } from './alarm-feed.ts';
import { parseInclude, type Include } from './management.ts';
import { IncludeQuery } from './schemas.ts';
import type { AlarmService } from './service.ts';
import { parseAcceptLanguage } from './text-catalog.ts';

const description =
  'Events: `alarm` { kind, alarm } with id `<plcId>:<seq>` (the journal sequence number); `heartbeat` {} ' +
  'without id every HeartbeatSeconds; `gap` { dropped } (no id) when a slow client lost events. Reconnecting ' +
  'with Last-Event-ID first replays the transitions missed since, in order, or, when the journal no longer ' +
  'holds them (or the id predates a gateway restart), sends one `resync` whose data is the alarm list result ' +
  'and whose id is the newest journal entry’s. Refusals are JSON, before the stream opens. Opening counts ' +
  'against NotificationConnections (shared with the notification SSE) and ConnectionLimits. Transitions of ' +
  'shelved, out-of-service and suppressed alarms are sent only with include naming their group; every ' +
  'client gets `shelving` events (no id): { plcId, at, action, code, by, reason, until, cause } for shelved, ' +
  'unshelved, outOfService and returnedToService, { plcId, at, action, rule, keys } for suppressed and ' +
  'unsuppressed (a rule turning on or off).';

const streamResponse = {
  200: {
    description: 'The event stream',
    content: { 'text/event-stream': { schema: Type.String() } },
  },
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
};

export function alarmStreamRoutes(
  app: FeatureApp,
  { streams, limits, now }: Pick<FeatureContext, 'streams' | 'limits' | 'now'>,
  service: AlarmService,
  monitored: PlcScope,
): void {
  const cultures = (request: FastifyRequest): string[] =>
    parseAcceptLanguage(request.headers['accept-language']);

  /** Everything that can refuse has run before the stream opens, so refusals are JSON. */
  const openStream = async (
    request: FastifyRequest,
    reply: FastifyReply,
    plcIds: string[],
    plcId: string | null,
    include: Include,
  ): Promise<void> => {
    const kind = plcId === null ? 'alarms.fleet.sse' : 'alarms.sse';
    const { stream, entry } = await openSse(reply, { streams, limits }, { kind, plcId, numbered: false });
    // The admin listing shows the PLCs a stream watches where notification streams show symbols.
    entry.describeWith(() => plcIds);
    stream.onClose(
      openAlarmFeed(stream, {
        service,
        plcIds,
        fleet: plcId === null,
        cultures: cultures(request),
        lastEventId: stream.lastEventId,
        maxReplay: streams.queueLength,
        include,
      }),
    );
  };

  const config = { feature: 'Alarms', policy: 'ReadAccess', plcScoped: monitored } as const;
  app.get(
    '/api/plcs/:plcId/alarms/stream',
    {
      sse: { kind: 'manual', heartbeat: false },
      schema: {
        tags: ['Alarms'],
        summary: 'Alarm transitions of one monitored PLC as Server-Sent Events',
        description,
        params: PlcIdParams,
        querystring: IncludeQuery,
        response: streamResponse,
      },
      config,
    },
    async (request, reply) => {
      const include = parseInclude(request.query.include);
      const plcId = targetOf(request).id;
      await openStream(request, reply, [plcId], plcId, include);
    },
  );

  app.get(
    '/api/alarms/stream',
    {
      sse: { kind: 'manual', heartbeat: false },
      schema: {
        tags: ['Alarms'],
        summary:
          'Alarm transitions of every monitored PLC the caller’s plc_access permits, as Server-Sent Events',
        description:
          `${description} Ids list every permitted PLC's last seq (\`line1:17,line2:40\`); order is kept ` +
          'within one PLC, not across PLCs.',
        querystring: IncludeQuery,
        response: streamResponse,
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', fleet: true },
    },
    async (request, reply) => {
      const include = parseInclude(request.query.include);
      const principal = principalOf(request);
      const permitted = service.plcIds().filter((id) => canAccessPlc(principal, id));
      await openStream(request, reply, permitted, null, include);
    },
  );

  registerHub(
    app,
    streams,
    {
      path: '/api/plcs/:plcId/alarms/ws',
      kind: 'alarms.ws',
      config,
      tag: 'Alarms',
      serverMethods: { alarm: 'AlarmTransition', shelving: 'AlarmShelving' },
      open: (connection, request) => {
        const plcId = targetOf(request).id;
        // The hub URL's own query (a SignalR client keeps it on negotiate and connect). The upgrade is done by
        // now: a bad name closes the connection with the error after the handshake.
        let include: Include;
        try {
          include = hubInclude(request);
        } catch (err) {
          connection.onReady(() => connection.end(`VALIDATION_ERROR: ${(err as Error).message}`));
          return;
        }
        connection.onClose(
          openAlarmFeed(connection, {
            service,
            plcIds: [plcId],
            fleet: false,
            cultures: cultures(request),
            lastEventId: null,
            maxReplay: 0,
            include,
          }),
        );
      },
    },
    now,
  );
}

/** `include` of a hub request's query; 400 VALIDATION_ERROR for a name not a group. */
function hubInclude(request: FastifyRequest): Include {
  const at = request.url.indexOf('?');
  const query = new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
  const values = query.getAll('include');
  return parseInclude(values.length === 0 ? undefined : values);
}
