// read_variable, read_variables and write_variable: the variables service, as the variable routes call it.
import { Type } from '@sinclair/typebox';
import { maxBatchPaths, readVariable, readVariables, writeVariable } from '../../variables/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import { PlcId, strict, SymbolPath } from './inputs.ts';
import { targetOf } from './plcs.ts';

const valueNote =
  'BOOL true/false; integers and REAL numbers; 64-bit integers as decimal strings; STRING strings; TIME in ' +
  'milliseconds; DATE/DT ISO 8601; enums their integer (a member name is also accepted); structs objects ' +
  'by member name; arrays arrays';

export function variableTools(): Tool[] {
  return [
    defineTool({
      name: 'read_variable',
      title: 'Read a variable',
      description: `Reads one PLC variable by instance path and answers its value, PLC type and sample time. Values: ${valueNote}.`,
      input: Type.Object({ plcId: PlcId, path: SymbolPath }, strict),
      mirrors: 'GET /api/plcs/:plcId/variables/:path',
      readOnly: true,
      run: ({ path }, { target }) => readVariable(targetOf(target), path),
    }),
    defineTool({
      name: 'read_variables',
      title: 'Read several variables',
      description: `Reads up to ${maxBatchPaths} variables in one PLC round trip; a bad path fails alone with its own error. Answers { values: { <path>: { value, typeName } } }.`,
      input: Type.Object(
        {
          plcId: PlcId,
          paths: Type.Array(SymbolPath, { minItems: 1, description: `At most ${maxBatchPaths}` }),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/variables',
      readOnly: true,
      run: ({ paths }, { target }) => readVariables(targetOf(target), paths),
    }),
    defineTool({
      name: 'write_variable',
      title: 'Write a variable',
      description:
        'Writes one PLC variable and answers the value read back (value null and readBackError when the write ' +
        'landed but reading it back failed). Needs an operator token (WriteAccess); the ' +
        'value is checked against the PLC type first (TYPE_MISMATCH) and the write is audited.',
      input: Type.Object(
        {
          plcId: PlcId,
          path: SymbolPath,
          value: Type.Unknown({ description: `The new value. ${valueNote}` }),
        },
        { ...strict, required: ['plcId', 'path', 'value'] },
      ),
      mirrors: 'PUT /api/plcs/:plcId/variables/:path',
      auditTarget: ({ path }) => path,
      readOnly: false,
      run: async ({ path, value }, { target, note }) => {
        const written = await writeVariable(targetOf(target), path, value);
        note({ oldValue: written.oldValues[path] ?? null, newValue: written.newValues[path] ?? null });
        return written.result;
      },
    }),
  ];
}
