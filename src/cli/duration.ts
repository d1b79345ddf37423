// Token lifetimes written the way people say them: 90, 30s, 15m, 1h, 7d.

const unitSeconds: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds in a duration like `30s`, `15m`, `1h`, `7d` (a bare number is seconds); undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * (unitSeconds[match[2] || 's'] ?? 1);
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}
