import { InvalidArgumentError } from 'commander';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Every form `--since` accepts, for error messages and `--help`. */
export const SINCE_FORMS =
  'a UTC ISO 8601 time (2030-01-10T10:00:00Z), a date (2030-01-10, midnight UTC) or a duration back from now (90s, 30m, 6h, 7d)';

/**
 * Parses a `--since` value into a Date. A time without an offset is read as UTC, so an
 * operator never gets a window shifted by the machine's time zone.
 */
export function parseSince(value: string, now: Date = new Date(), flag = '--since'): Date {
  const text = value.trim();
  const duration = /^(\d+)\s*([smhd])$/i.exec(text);
  if (duration) {
    const unit = duration[2]!.toLowerCase() as keyof typeof UNIT_MS;
    return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[unit]);
  }
  let iso = text;
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) iso = `${iso}T00:00:00.000Z`;
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(iso))
    iso = `${iso.replace(' ', 'T')}Z`;
  const isIso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(iso);
  const parsed = Date.parse(iso);
  if (!isIso || Number.isNaN(parsed)) {
    throw new InvalidArgumentError(`${flag} "${value}" is not a time: use ${SINCE_FORMS}`);
  }
  return new Date(parsed);
}
