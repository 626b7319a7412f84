import { InvalidArgumentError } from 'commander';
import { cliClock } from '../context.ts';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Every form a time flag accepts, for error messages and `--help`. */
export const TIME_FORMS =
  'a UTC ISO 8601 time (2030-01-10T10:00:00Z), a date (2030-01-10, midnight UTC), a duration back from now (90s, 30m, 6h, 7d) or now';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** The largest time a JavaScript Date holds (ECMA-262: ±8.64e15 ms around the epoch). */
const MAX_TIME_MS = 8.64e15;

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Why the fields of a calendar time are impossible, or undefined. `Date.parse` would roll
 * 2030-02-30 over to 2 March and 24:00 to the next day; an operator asking for a window must
 * get the window they typed or an error, never a neighbour.
 */
function impossibility(fields: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offset: string | undefined;
}): string | undefined {
  const { year, month, day, hour, minute, second, offset } = fields;
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const days = daysIn(year, month);
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has ${days} days`;
  if (hour > 23) return `hour ${hour} does not exist (00 to 23)`;
  if (minute > 59) return `minute ${minute} does not exist (00 to 59)`;
  if (second > 59) return `second ${second} does not exist (00 to 59)`;
  if (offset !== undefined && !/^z$/i.test(offset)) {
    const [, hours, minutes] = /^[+-](\d{2}):?(\d{2})$/.exec(offset)!;
    if (Number(hours) > 23 || Number(minutes) > 59) return `offset ${offset} does not exist`;
  }
  return undefined;
}

/**
 * The one parser of every time flag of every command (`--since`, `--from`, `--to`). A time
 * without an offset is read as UTC, so an operator never gets a window shifted by the
 * machine's time zone; an impossible calendar time is refused, never rolled over.
 */
export function parseTime(value: string, flag: string, now: Date): Date {
  const text = value.trim();
  const refuse = (why: string): never => {
    throw new InvalidArgumentError(`${flag} "${value}" is not a time: ${why}use ${TIME_FORMS}`);
  };
  if (/^now$/i.test(text)) return new Date(now.getTime());
  const duration = /^(\d+)\s*([smhd])$/i.exec(text);
  if (duration) {
    const unit = duration[2]!.toLowerCase() as keyof typeof UNIT_MS;
    const at = now.getTime() - Number(duration[1]) * UNIT_MS[unit];
    if (!Number.isFinite(at) || Math.abs(at) > MAX_TIME_MS) refuse('too far back; ');
    return new Date(at);
  }
  const match = DATE_TIME.exec(text);
  if (!match) return refuse('');
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  const fields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    offset,
  };
  const why = impossibility(fields);
  if (why) refuse(`${why}; `);
  const utc = new Date(0);
  utc.setUTCFullYear(fields.year, fields.month - 1, fields.day);
  utc.setUTCHours(
    fields.hour,
    fields.minute,
    fields.second,
    Number((fraction ?? '0').padEnd(3, '0').slice(0, 3)),
  );
  let ms = utc.getTime();
  if (offset !== undefined && !/^z$/i.test(offset)) {
    const [, sign, hours, minutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(offset)!;
    ms -= (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60_000;
  }
  return new Date(ms);
}

/**
 * A commander option parser for a time flag, naming the flag when the value is refused.
 * Relative times (`2h`) count back from the CLI's clock.
 */
export function timeOption(flag: string): (value: string) => Date {
  return (value) => parseTime(value, flag, cliClock());
}
