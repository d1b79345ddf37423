// get_device_info: the device service, as the device info route calls it.
import { Type } from '@sinclair/typebox';
import { defineTool, type Tool } from '../tool-kit.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

export function deviceTools(): Tool[] {
  return [
    defineTool({
      name: 'get_device_info',
      title: 'Device info',
      description: 'Device name, TwinCAT runtime version and ADS state of one PLC, read from the device.',
      input: Type.Object({ plcId: PlcId }, strict),
      mirrors: 'GET /api/plcs/:plcId/device/info',
      readOnly: true,
      run: (_args, { target }) => targetOf(target).deviceInfo(),
    }),
  ];
}
