// Node's raw header list, read where a repeated header must be refused (Host, Authorization), which the
// parsed headers hide by joining or dropping repeats.

/** How often a header (lower-case name) occurs in Node's raw header list, where repeats are kept. */
export function countHeader(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!;
    if (header.length === name.length && header.toLowerCase() === name) count++;
  }
  return count;
}
