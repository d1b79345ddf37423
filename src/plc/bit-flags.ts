// Flag sets whose members take consecutive bits, declared by order as the documents list them, so that a
// table cannot skip or repeat a bit.

/** `{ [name]: 2 ** (from + index) }` for the names in order. */
export function bitFlags<const N extends readonly string[]>(
  names: N,
  from = 0,
): Readonly<Record<N[number], number>> {
  return Object.freeze(Object.fromEntries(names.map((name, i) => [name, 2 ** (from + i)]))) as Record<
    N[number],
    number
  >;
}
