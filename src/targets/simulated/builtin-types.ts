// Types every simulated target publishes, so enum metadata has something to show without a scenario.
import type { ProgramBuilder } from '../../simulator/engine/index.ts';
import { errorTypeMembers } from '../../simulator/scenario/index.ts';

export function declareBuiltinTypes(builder: ProgramBuilder): void {
  builder.enum('E_ErrorType', errorTypeMembers);
  // Gaps, a non-zero start and a negative value: positions never imply values.
  builder.enum('E_MachineMode', [
    { name: 'eManual', value: -1 },
    { name: 'eAuto', value: 10 },
    { name: 'eService', value: 20 },
    { name: 'eSetup', value: 35 },
  ]);
  builder.symbol('GVL_Sim.eLastErrorType', 'E_ErrorType', {
    value: 'NONE',
    comment: 'Severity of the most recent error',
  });
  builder.symbol('GVL_Sim.eMachineMode', 'E_MachineMode', {
    value: 'eManual',
    comment: 'Operating mode of the machine',
  });
}
