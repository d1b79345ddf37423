// Notification routes (flag Notifications, ReadAccess): the SSE stream and the SignalR hub of one PLC.
import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../../errors.ts';
import { targetOf } from '../../guards/install-guards.ts';
import { ErrorEnvelope } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { openSse } from '../../http/streams/open-sse.ts';
import { registerHub } from '../../http/streams/signalr/hub-routes.ts';
import { checkEtherCatStream, etherCatDiagnosticsKey, streamEtherCat } from '../ethercat/index.ts';
import { NotificationService, notificationServiceKey } from './service.ts';
import { assertNumeric, symbolKey, type NotificationSession } from './session.ts';
import type { StreamDetails } from '../../http/streams/stream-rows.ts';
import {
  cycleLadder,
  effectiveOptions,
  optionNames,
  type OptionBounds,
  type RequestedOptions,
} from './options.ts';

const config = { feature: 'Notifications', policy: 'ReadAccess', plcScoped: true } as const;

/** Stream event name -> hub method the client registers with `connection.on(...)`. */
const hubMethods = {
  // SubscriptionConfirmed(string[]): the symbols themselves, not the SSE event's object; a Subscribe given options
  // is confirmed with the effective options as a second argument (a client of the spec's form gets one argument).
  subscribed: {
    method: 'SubscriptionConfirmed',
    argument: (json: string) => {
      const { symbols, options } = JSON.parse(json) as { symbols: string[]; options?: unknown };
      return options === undefined
        ? JSON.stringify(symbols)
        : [JSON.stringify(symbols), JSON.stringify(options)];
    },
  },
  change: 'VariableChanged',
  error: 'SymbolError',
  typeChanged: 'SymbolTypeChanged',
  disconnected: 'Disconnected',
  reconnected: 'Reconnected',
  ethercat: 'EtherCatChanged',
} as const;

function symbolList(args: readonly unknown[], withOptions = false): string[] {
  const [symbols] = args;
  if (
    (args.length !== 1 && !(withOptions && args.length === 2)) ||
    !Array.isArray(symbols) ||
    !symbols.every((s): s is string => typeof s === 'string' && s.trim().length > 0)
  ) {
    throw new AppError(
      'VALIDATION_ERROR',
      withOptions
        ? 'Pass an array of symbol paths, and optionally an options object { cycleMs, mode, deadband, maxIntervalMs }.'
        : 'Pass one argument: an array of symbol paths.',
    );
  }
  return symbols;
}

export const notificationsRoutes: FeaturePlugin = (
  app,
  { config: appConfig, streams, limits, now, services },
) => {
  const etherCat = services.get(etherCatDiagnosticsKey);
  const { settings } = appConfig;
  const maxSymbols = settings.Notifications.MaxSymbolsPerClient;
  const n = settings.Notifications;
  const bounds: OptionBounds = {
    defaultCycleMs: n.DefaultCycleTimeMs,
    minCycleMs: n.MinCycleTimeMs,
    maxCycleMs: n.MaxCycleTimeMs,
    maxResendIntervalMs: n.MaxResendIntervalMs,
    minResendIntervalMs: n.MinResendIntervalMs,
    cycleLadder: cycleLadder(n),
  };
  const service = new NotificationService({
    bounds,
    maxSymbols,
    maxSubscriptionsPerUser: n.MaxSubscriptionsPerUser,
    now,
  });
  services.provide(notificationServiceKey, service);
  app.addHook('onClose', () => service.close());

  app.get(
    '/api/plcs/:plcId/notifications/sse',
    {
      sse: { kind: 'manual', heartbeat: false },
      schema: {
        tags: ['Notifications'],
        summary: 'Live variable changes as Server-Sent Events',
        description:
          'Events: `subscribed` { symbols } first, then the current value of each as `change` ' +
          '{ symbol, value, type, timestamp }, then every change; `heartbeat` {} every HeartbeatSeconds; ' +
          '`error` { symbol, code, message } (unknown symbol, SYMBOL_INVALIDATED: the symbol vanished in a program ' +
          'change); `typeChanged` { symbol, type, size, previousType, previousSize } (a program change retyped ' +
          'it; the values that follow are of the new type); `disconnected` { plcId, code } ' +
          'and `reconnected` { plcId } followed by fresh values; `gap` { dropped } when a slow client lost events. ' +
          'Every event has an id; a client resuming with Last-Event-ID gets `subscribed` and every current value ' +
          'again. Refusals are JSON, before the stream opens. Opening counts against NotificationConnections. ' +
          'cycleMs, mode, deadband and maxIntervalMs apply to every symbol of the request; with any of them ' +
          '`subscribed` reads { symbols, options } with the effective options.',
        params: PlcIdParams,
        querystring: Type.Object({
          symbols: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), {
              minItems: 1,
              description: `Repeat per symbol (symbols=a&symbols=b); at most ${maxSymbols} (400 SUBSCRIPTION_LIMIT_EXCEEDED)`,
            }),
          ),
          cycleMs: Type.Optional(
            Type.Number({
              description:
                `Sampling cycle (ms), ${n.MinCycleTimeMs}-${n.MaxCycleTimeMs} (400 CYCLE_TIME_OUT_OF_RANGE); ` +
                `default ${n.DefaultCycleTimeMs}; revised down to the largest of ${cycleLadder(n).join(', ')} ` +
                `not above it (Notifications:CycleLadderMs; \`subscribed\` echoes the revised one). Clients with ` +
                `equal symbol, cycleMs and mode share one PLC notification`,
            }),
          ),
          mode: Type.Optional(
            Type.String({
              description:
                'on-change (default): each change; cyclic: the value every cycleMs, changed or not ' +
                '(anything else: 400 SUBSCRIPTION_OPTIONS_INVALID)',
            }),
          ),
          deadband: Type.Optional(
            Type.Number({
              description:
                'on-change, numeric symbols only (400 DEADBAND_NOT_NUMERIC otherwise): a change smaller than this ' +
                'from the last value sent to this client is not sent; default 0',
            }),
          ),
          maxIntervalMs: Type.Optional(
            Type.Number({
              description:
                `on-change: the current value is sent again after this long without a change event; 0 (default) ` +
                `or the larger of cycleMs and ${n.MinResendIntervalMs} (Notifications:MinResendIntervalMs) to ` +
                `${n.MaxResendIntervalMs} (400 SUBSCRIPTION_OPTIONS_INVALID)`,
            }),
          ),
          ethercat: Type.Optional(
            Type.Boolean({
              description:
                'true: also `ethercat` { masterId, address, slave } events, every slave first, then changes ' +
                '(flag EtherCatDiagnostics)',
            }),
          ),
        }),
        response: {
          200: {
            description: 'The event stream',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          '4xx': ErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
      config,
    },
    async (request, reply) => {
      const target = targetOf(request);
      const symbols = request.query.symbols ?? [];
      const ethercat = request.query.ethercat === true;
      const requested: RequestedOptions = {};
      for (const name of optionNames) {
        const value = request.query[name];
        if (value !== undefined) Object.assign(requested, { [name]: value });
      }
      const options = effectiveOptions(requested, bounds);
      if (symbols.length === 0 && !ethercat) {
        throw new AppError('VALIDATION_ERROR', 'Pass symbols, ethercat=true, or both.');
      }
      if (ethercat) checkEtherCatStream(appConfig, target);
      const distinct = new Set(symbols.map(symbolKey)).size;
      if (distinct > maxSymbols) {
        throw new AppError(
          'SUBSCRIPTION_LIMIT_EXCEEDED',
          `At most ${maxSymbols} symbols per client (Notifications:MaxSymbolsPerClient); got ${distinct}.`,
        );
      }
      if (target.connectionState() !== 'Connected') {
        throw new AppError('PLC_UNAVAILABLE', `PLC '${target.id}' is not connected.`);
      }
      // Before the stream opens, so that it is a plain 400.
      if (options.deadband > 0) await assertNumeric(service.shared(target), symbols);
      const user = request.principal?.sub ?? '';
      service.assertQuota(target, user, symbols, options);
      const { stream, entry } = await openSse(
        reply,
        { streams, limits },
        { kind: 'notifications.sse', plcId: target.id },
      );
      const session = service.open(target, stream, user);
      entry.describeWith(
        () => session.symbols(),
        () => listedOptions(session),
      );
      let etherCatStream: Promise<() => void> | undefined;
      stream.onClose(() => {
        void etherCatStream?.then((stop) => stop());
        void session.close();
      });
      // The spec's form (no option named) gets the spec's `subscribed` { symbols }.
      const echoOptions = Object.keys(requested).length > 0;
      try {
        await session.subscribe(symbols, { options, echoOptions, numericChecked: true });
      } catch (err) {
        // A concurrent stream of the same user took the last places since the check above: the refusal is the
        // stream's one event.
        const { code, message } = isAppError(err) ? err : new AppError('INTERNAL_ERROR');
        stream.send({ name: 'error', data: JSON.stringify({ code, message }) });
        stream.end();
        return;
      }
      if (ethercat) {
        etherCatStream = streamEtherCat(etherCat.monitor, target, (e) => session.emit(e));
        await etherCatStream;
      }
    },
  );

  registerHub(
    app,
    streams,
    {
      path: '/api/plcs/:plcId/notifications/ws',
      kind: 'notifications.ws',
      config,
      tag: 'Notifications',
      serverMethods: hubMethods,
      open: (connection, request) => {
        const target = targetOf(request);
        const session = service.open(target, connection, request.principal?.sub ?? '');
        connection.describeWith(
          () => session.symbols(),
          () => listedOptions(session),
        );
        // Set by the first SubscribeEtherCat, so a second one (even while the first awaits its reading) is a no-op.
        let etherCatStream: Promise<() => void> | undefined;
        connection.onClose(() => {
          void etherCatStream?.then((stop) => stop());
          void session.close();
        });
        connection
          .method('Subscribe', async (args, complete) => {
            const symbols = symbolList(args, true);
            // Subscribe(symbols, options): the options object beside the list; Subscribe(symbols): the defaults.
            const given = args.length === 2 && args[1] !== null;
            const options = given ? effectiveOptions(args[1], bounds) : undefined;
            if (target.connectionState() !== 'Connected') {
              throw new AppError('PLC_UNAVAILABLE', `PLC '${target.id}' is not connected.`);
            }
            // The Completion is queued right after SubscriptionConfirmed, before the first values.
            const confirmed = (o: { symbols: string[] }): void => complete(o.symbols);
            return (
              await session.subscribe(symbols, {
                ...(options ? { options } : {}),
                echoOptions: given,
                confirmed,
              })
            ).symbols;
          })
          .method('Unsubscribe', (args) => session.unsubscribe(symbolList(args)))
          .method('SubscribeEtherCat', async (args) => {
            if (args.length !== 0)
              throw new AppError('VALIDATION_ERROR', 'SubscribeEtherCat takes no argument.');
            checkEtherCatStream(appConfig, target);
            if (!etherCatStream) {
              etherCatStream = streamEtherCat(etherCat.monitor, target, (e) => session.emit(e));
            }
            await etherCatStream;
            return null;
          });
      },
    },
    now,
  );
};

/** The stream's row details in the admin listing: `{ options }` once it named options, else none. */
function listedOptions(session: NotificationSession): StreamDetails | undefined {
  const options = session.namedOptions();
  return options === undefined ? undefined : { options };
}
