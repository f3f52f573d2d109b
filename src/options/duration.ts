const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `90s`, `15m`, `2h`, `1d`, or plain seconds, in milliseconds; undefined when it is none of them.
 * One rule for every duration propdata reads: the flags (--max-age, --max-wait) and the gateway's
 * request headers that stand for them.
 */
export function parseDuration(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(value);
  return match ? Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()]!) : undefined;
}
