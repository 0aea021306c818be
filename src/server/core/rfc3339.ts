// The one parser of RFC 3339 date-times (spec 2.1) for every timestamp a request carries.

/** `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`, `T`/`t` and `Z`/`z`; seconds 00..60 (a leap second). */
export const RFC3339_PATTERN =
  /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/;

/** RFC 3339 full-date: `YYYY-MM-DD` (whether the day exists is isCalendarDate's question). */
export const FULL_DATE_PATTERN = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;

function dayExists(year: number, month: number, day: number): boolean {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A YYYY-MM-DD that exists on the calendar (no 31 April; 29 February only in leap years). */
export function isCalendarDate(text: string): boolean {
  const match = FULL_DATE_PATTERN.exec(text);
  return match !== null && dayExists(Number(match[1]), Number(match[2]), Number(match[3]));
}

/**
 * The instant an RFC 3339 text (20 to 64 characters) names, or undefined when it is not one. A
 * leap second (hh:mm:60) is well formed; JavaScript time has none, so it is the instant the next
 * minute starts (plus its fraction). Fractions finer than a millisecond are cut.
 */
export function parseRfc3339(text: string): Date | undefined {
  if (text.length < 20 || text.length > 64) return undefined;
  const match = RFC3339_PATTERN.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = match;
  if (!dayExists(Number(year), Number(month), Number(day))) return undefined;
  const leap = second === '60';
  const millis = fraction.slice(0, 4).padEnd(4, '0');
  const normal = `${year}-${month}-${day}T${hour}:${minute}:${leap ? '59' : second}${millis === '.000' || fraction === '' ? '' : millis}${zone.toUpperCase()}`;
  const ms = Date.parse(normal);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(leap ? ms + 1000 : ms);
}
