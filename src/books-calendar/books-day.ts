/**
 * "Days" follow the books' time zone (`PAYSYNC_BOOKS_TIMEZONE`): a merchant in Abidjan and one
 * in Paris close their day at different instants. A day is the half-open window
 * [local midnight, next local midnight), in UTC instants.
 */

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD (2030-02-30 is not one). */
export function isCalendarDay(text: string): boolean {
  const match = DAY_PATTERN.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

/** How far `timeZone` is ahead of UTC at `instantMs`, in ms. */
function offsetMs(instantMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instantMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return local - Math.floor(instantMs / 1000) * 1000;
}

/** The UTC instant of local midnight starting `day` in `timeZone`. */
export function startOfDay(day: string, timeZone: string): Date {
  const naive = Date.parse(`${day}T00:00:00.000Z`);
  // Twice: the offset at the guess may differ from the offset at the answer across a DST change.
  let instant = naive - offsetMs(naive, timeZone);
  instant = naive - offsetMs(instant, timeZone);
  return new Date(instant);
}

/** The day after `day` (calendar arithmetic, no time zone involved). */
export function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

export function previousDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

/** `[from, to)` of `day` in `timeZone`, as UTC ISO strings with milliseconds. */
export function dayWindow(day: string, timeZone: string): { from: string; to: string } {
  return {
    from: startOfDay(day, timeZone).toISOString(),
    to: startOfDay(nextDay(day), timeZone).toISOString(),
  };
}

/** The books' day an instant falls in. */
export function dayOf(instant: Date, timeZone: string): string {
  const shifted = new Date(instant.getTime() + offsetMs(instant.getTime(), timeZone));
  return shifted.toISOString().slice(0, 10);
}
