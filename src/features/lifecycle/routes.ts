// Lifecycle routes (flag Lifecycle, LifecycleAccess, the Lifecycle limit shared per PLC): start, stop, reset.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { adsStates, type AdsState } from '../../targets/target.ts';
import { lifecycleCommands, runLifecycle, type LifecycleCommand } from './service.ts';

const LifecycleResult = Type.Object({
  adsState: Type.Unsafe<AdsState>({
    type: 'string',
    enum: [...adsStates],
    description: 'ADS state read back after the command',
  }),
});

const summaries: Readonly<Record<LifecycleCommand, string>> = {
  start: 'Set the PLC runtime to Run',
  stop: 'Set the PLC runtime to Stop',
  reset: 'Reset the PLC runtime; it is left in Stop',
};

export const lifecycleRoutes: FeaturePlugin = (app, _context) => {
  for (const command of Object.keys(lifecycleCommands) as LifecycleCommand[]) {
    app.post(
      `/api/plcs/:plcId/lifecycle/${command}`,
      {
        schema: {
          tags: ['Lifecycle'],
          summary: summaries[command],
          description:
            'At most one lifecycle request per PLC in any 5 s (RateLimiting.Lifecycle), whoever sends it.',
          params: PlcIdParams,
          response: envelopeResponses(LifecycleResult),
        },
        config: {
          feature: 'Lifecycle',
          policy: 'LifecycleAccess',
          plcScoped: true,
          limit: 'Lifecycle',
          audit: { action: `lifecycle.${command}`, target: () => lifecycleCommands[command] },
        },
      },
      async (request) => {
        const { before, adsState } = await runLifecycle(targetOf(request), command);
        noteAudit(request, { oldValue: before, newValue: adsState });
        return ok({ adsState });
      },
    );
  }
};
