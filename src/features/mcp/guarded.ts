// Runs a read behind the admission rules of the route it mirrors, for the resources and the prompt (the tools
// have their own runner, which also validates and audits).
import type { Admit } from '../../guards/admission.ts';
import type { RouteCatalog, RouteKey } from '../../http/route-catalog.ts';
import type { PlcTarget } from '../../targets/target.ts';
import type { Caller } from './tool-kit.ts';

export type Guarded = <T>(
  key: RouteKey,
  caller: Caller,
  plcId: unknown,
  run: (target: PlcTarget | null) => T | Promise<T>,
) => Promise<T>;

export function createGuarded(admit: Admit, routes: RouteCatalog): Guarded {
  return async (key, caller, plcId, run) => {
    const { target, spent } = admit(routes.options(key), {
      principal: caller.principal,
      plcId,
      user: caller.principal.sub,
    });
    await spent;
    return run(target);
  };
}

/** Whether the route a resource or prompt part mirrors is switched on. */
export function routeEnabled(
  routes: RouteCatalog,
  features: Readonly<Record<string, boolean>>,
  key: RouteKey,
): boolean {
  const feature = routes.options(key).feature;
  return feature === undefined || features[feature] === true;
}
