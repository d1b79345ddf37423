// The program both contract runs serve: the small example scenario plus one symbol of every elementary type.
import type { PlcTargetConfig } from '../../src/config/schema.ts';
import type { Config } from '../../src/config/schema.ts';
import type { SimulatedPlc } from '../../src/simulator/engine/index.ts';
import type { PlcTarget, TargetLog } from '../../src/targets/target.ts';
import { testConfig } from '../helpers/config.ts';
import { primitiveSymbols } from '../simulator/ads-server/fixture.ts';

/** What a contract run needs: the target under test and the engine PLC behind it (for setup only). */
export interface ContractSubject {
  target: PlcTarget;
  plc: SimulatedPlc;
  /** What the target under test logged as warnings. */
  warnings: WarningLog;
  cleanup(): Promise<void>;
}

/** A TargetLog that keeps every warning, its children's too (their bindings first among the fields). */
export class WarningLog implements TargetLog {
  readonly lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  readonly #bindings: Record<string, unknown>;

  constructor(lines?: WarningLog['lines'], bindings: Record<string, unknown> = {}) {
    if (lines) this.lines = lines;
    this.#bindings = bindings;
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ fields: { ...this.#bindings, ...fields }, message });
  }

  info(): void {}

  child(bindings: Record<string, unknown>): WarningLog {
    return new WarningLog(this.lines, { ...this.#bindings, ...bindings });
  }
  /** Takes the lines logged so far. */
  take(): Array<{ fields: Record<string, unknown>; message: string }> {
    return this.lines.splice(0);
  }
}

export type ContractFactory = () => Promise<ContractSubject>;

/** Elementary symbols with their initial values as the port answers them. */
export const elementary = {
  ...primitiveSymbols,
  'MAIN.sText': ['STRING(40)', 'Grüße aus der Halle'],
} as const;

export function contractConfig(): Config {
  // The gateway names its own AMS address, as it must when talking to a PLC without a local router.
  return testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } }, process.cwd());
}

export function contractSettings(overrides: Partial<PlcTargetConfig> = {}): PlcTargetConfig {
  const initial = Object.fromEntries(
    Object.entries(elementary).map(([name, [type, value]]) => [name, { type, value }]),
  );
  return {
    DisplayName: 'Contract PLC',
    Mode: 'Simulated',
    Port: 851,
    TcpPort: 48898,
    TimeoutMs: 3000,
    SymbolBrowseTimeoutMs: 30000,
    NotificationBudget: 500,
    Rpc: { Invokable: [] },
    InitialValues: initial,
    Scenario: 'examples/scenarios/small',
    ScenarioAutoStart: false,
    ...overrides,
  };
}
