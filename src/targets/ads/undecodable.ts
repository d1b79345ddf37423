// Types the driver cannot interpret (LDT, LDATE, enums on 64-bit bases, anything it does not know): kept in
// the symbol tree with their size, but reading, writing or subscribing to them answers TYPE_NOT_SUPPORTED
// naming the type, never a made-up value.
import { AppError } from '../../errors.ts';
import type { PlcType, StructType } from '../../plc/index.ts';

const undecodable = new WeakSet<PlcType>();
/** The undecodable type inside each composite type checked so far (null: none). */
const found = new WeakMap<PlcType, string | null>();

/** A placeholder of `size` bytes for a type the driver cannot interpret. */
export function opaque(name: string, size: number): StructType {
  const type: StructType = Object.freeze({
    kind: 'struct',
    name,
    size,
    members: Object.freeze([]),
    methods: Object.freeze([]),
  });
  undecodable.add(type);
  return type;
}

/** The name of the first type within `type` (itself, a member, an element) the driver cannot interpret. */
function undecodableIn(type: PlcType): string | undefined {
  if (undecodable.has(type)) return type.name;
  if (type.kind !== 'struct' && type.kind !== 'array') return undefined;
  const known = found.get(type);
  if (known !== undefined) return known ?? undefined;
  let hit: string | undefined;
  if (type.kind === 'array') hit = undecodableIn(type.element);
  else for (const m of type.members) if ((hit = undecodableIn(m.type)) !== undefined) break;
  found.set(type, hit ?? null);
  return hit;
}

/** TYPE_NOT_SUPPORTED when `type` holds anything the driver cannot interpret. */
export function checkDecodable(type: PlcType, path: string): void {
  const name = undecodableIn(type);
  if (name === undefined) return;
  const where = name === type.name ? `its type ${name}` : `${type.name} contains ${name}, which`;
  throw new AppError(
    'TYPE_NOT_SUPPORTED',
    `${path}: ${where} cannot be read or written by the gateway (not supported).`,
  );
}
