// Device routes (flag DeviceInfo, ReadAccess): device name, runtime version and ADS state.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { adsStates, type AdsState } from '../../targets/target.ts';
import { deviceState } from './service.ts';

const AdsStateSchema = Type.Unsafe<AdsState>({ type: 'string', enum: [...adsStates] });

const DeviceInfo = Type.Object({
  deviceName: Type.String(),
  version: Type.String({ description: 'TwinCAT runtime version, major.minor.build' }),
  adsState: AdsStateSchema,
});

const DeviceState = Type.Object({
  state: AdsStateSchema,
  timestamp: Type.String({ format: 'date-time', description: 'ISO 8601 with UTC offset' }),
});

const routeConfig = { feature: 'DeviceInfo', policy: 'ReadAccess', plcScoped: true } as const;

export const deviceRoutes: FeaturePlugin = (app, _context) => {
  app.get(
    '/api/plcs/:plcId/device/info',
    {
      schema: {
        tags: ['Device'],
        summary: 'Device name, runtime version and ADS state',
        params: PlcIdParams,
        response: envelopeResponses(DeviceInfo),
      },
      config: routeConfig,
    },
    async (request) => ok(await targetOf(request).deviceInfo()),
  );

  app.get(
    '/api/plcs/:plcId/device/state',
    {
      schema: {
        tags: ['Device'],
        summary: 'ADS state and when it was read',
        params: PlcIdParams,
        response: envelopeResponses(DeviceState),
      },
      config: routeConfig,
    },
    async (request) => ok(await deviceState(targetOf(request))),
  );
};
