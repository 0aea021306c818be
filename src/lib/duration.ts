// Parses the short durations the sandbox clock takes: 30d, 12h, 90m, 45s, 1d12h.

const UNIT_SECONDS: Readonly<Record<string, number>> = { d: 86_400, h: 3_600, m: 60, s: 1 };
const DURATION_PATTERN = /^(?:\d+[dhms])+$/;

/** Seconds in a duration such as `1d12h`; throws a readable message for anything else. */
export function parseDuration(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (!DURATION_PATTERN.test(trimmed)) {
    throw new Error(`"${text}" is not a duration: use a number and a unit (d, h, m, s), e.g. 30d, 12h, 1d12h`);
  }
  let seconds = 0;
  for (const [, amount = '0', unit = 's'] of trimmed.matchAll(/(\d+)([dhms])/g)) {
    seconds += Number.parseInt(amount, 10) * (UNIT_SECONDS[unit] ?? 1);
  }
  if (!Number.isSafeInteger(seconds)) throw new Error(`"${text}" is too long a duration`);
  return seconds;
}

/** The reverse, for display: 129600 -> "1d12h"; 0 -> "0s". */
export function formatDuration(totalSeconds: number): string {
  const sign = totalSeconds < 0 ? '-' : '';
  let rest = Math.abs(Math.trunc(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of Object.entries(UNIT_SECONDS)) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return sign + (parts.join('') || '0s');
}
