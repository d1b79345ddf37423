// Type metadata: enum members as the PLC program declares them. The driver caches per connection (the first
// resolution uploads the whole type system), so this layer adds nothing but the call.
import type { EnumMembers, PlcTarget } from '../../targets/target.ts';

/** Members in declaration order; 404 TYPE_NOT_FOUND, 400 VALIDATION_ERROR when the type is not an enum. */
export function enumMembers(target: PlcTarget, typeName: string): Promise<EnumMembers> {
  return target.enumMembers(typeName.trim());
}
