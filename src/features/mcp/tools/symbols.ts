// browse_symbols, get_symbol_info and get_enum_members: the symbol browser and type metadata, depth-limited so
// an agent never pulls a whole program's tree in one answer.
import { Type } from '@sinclair/typebox';
import { defineTool, type Tool } from '../tool-kit.ts';
import { symbolBrowser, type ToolDeps } from './deps.ts';
import { PlcId, strict, SymbolPath } from './inputs.ts';
import { targetOf } from './plcs.ts';
import { limitTree } from './symbol-tree.ts';

/** Deepest children a browse answers; an agent goes further with get_symbol_info on a deeper path. */
export const maxBrowseDepth = 5;
/** Most symbols (all levels counted) one answer carries. */
export const maxBrowseNodes = 1000;

const Depth = (def: number) =>
  Type.Integer({
    minimum: 0,
    maximum: maxBrowseDepth,
    default: def,
    description: `Levels of children to include (0-${maxBrowseDepth}, default ${def}); deeper ones are cut and counted in childCount`,
  });

export function symbolTools({ context }: ToolDeps): Tool[] {
  return [
    defineTool({
      name: 'browse_symbols',
      title: 'Browse or search symbols',
      description:
        'Lists the PLC program’s symbols (top level, or the outermost matches of a case-insensitive search of ' +
        `the instance path), with children down to depth and at most limit symbols in all (<= ${maxBrowseNodes}); ` +
        'truncated says when more exist.',
      input: Type.Object(
        {
          plcId: PlcId,
          search: Type.Optional(
            Type.String({ maxLength: 256, description: 'Substring of the instance path' }),
          ),
          flat: Type.Optional(
            Type.Boolean({ default: false, description: 'true: every matching node without children' }),
          ),
          depth: Type.Optional(Depth(1)),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: maxBrowseNodes,
              default: 200,
              description: 'Most symbols answered',
            }),
          ),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/symbols',
      readOnly: true,
      run: async ({ search, flat, depth, limit }, { target }) => {
        const list = await symbolBrowser(context).list(targetOf(target), { search, flat: flat ?? false });
        return { ...limitTree(list, depth ?? 1, limit ?? 200), total: list.length };
      },
    }),
    defineTool({
      name: 'get_symbol_info',
      title: 'Symbol details',
      description:
        'One symbol, struct member or array element: PLC type, size, comment and its children down to depth. ' +
        'Use it to learn a variable’s type before writing it.',
      input: Type.Object({ plcId: PlcId, path: SymbolPath, depth: Type.Optional(Depth(1)) }, strict),
      mirrors: 'GET /api/plcs/:plcId/symbols/:symbolPath',
      readOnly: true,
      run: async ({ path, depth }, { target }) => {
        const node = await symbolBrowser(context).get(targetOf(target), path);
        const { symbols, truncated } = limitTree([node], depth ?? 1, maxBrowseNodes);
        return { ...symbols[0], truncated };
      },
    }),
    defineTool({
      name: 'get_enum_members',
      title: 'Enum members',
      description:
        'Members of a PLC enum type in declaration order with their integer values (values may have gaps), ' +
        'to read enum variables by name.',
      input: Type.Object(
        {
          plcId: PlcId,
          typeName: Type.String({ minLength: 1, maxLength: 256, description: 'e.g. E_MachineMode' }),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/types/:typeName/enum-members',
      readOnly: true,
      run: ({ typeName }, { target }) => targetOf(target).enumMembers(typeName.trim()),
    }),
  ];
}
