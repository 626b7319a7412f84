import { validate as validateCron } from 'node-cron';
import { z } from 'zod';

/** What a group of variables parses to. */
export type Parsed<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape>>;

export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

export const positiveInt = (fallback: number, max = 1_000_000) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);

/** A whole number of 0 or more (a wait that may be none). */
export const nonNegativeInt = (fallback: number, max = 1_000_000) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(max, `must be at most ${max}`)
    .default(fallback);

/**
 * {@link positiveInt} without a default, for a variable whose default is a component's
 * `DEFAULT_*` constant: the settings builder merges it, so it is declared once.
 */
export const optionalPositiveInt = (max = 1_000_000) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .optional();

/** An HTTP header name, kept lower-case because Node hands headers over lower-cased. */
export const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => /^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(value), {
    message: 'must be an HTTP header name, for example x-signature',
  });

export const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
    message: 'must be an http:// or https:// URL, for example https://api.example.com',
  })
  .transform((value) => value.replace(/\/+$/, ''));

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `90s`, `15m`, `6h`, `7d` → ms; undefined when the text is not one of those (or is 0). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
  return ms > 0 ? ms : undefined;
}

/** ms → `90s`, `15m`, `6h`, `7d` (the largest unit it is a whole number of), `0s` for 0. */
export function formatDuration(ms: number): string {
  const [unit, unitMs] = Object.entries(DURATION_UNITS_MS)
    .sort(([, a], [, b]) => b - a)
    .find(([, each]) => ms > 0 && ms % each === 0) ?? ['s', 1000];
  return `${ms / unitMs}${unit}`;
}

export const duration = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 30m, 24h or 7d' });
        return z.NEVER;
      }
      return ms;
    });

/** A comma-separated list of durations (the janitor's gaps); empty means "use the default". */
export const durationList = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const gaps = value.split(',').map(parseDuration);
    if (gaps.some((gap) => gap === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be durations separated by commas, for example 1m,5m,15m,1h,6h,24h',
      });
      return z.NEVER;
    }
    return gaps as number[];
  });

/** A node-cron expression, or `off` to turn the task off. */
export const cronOrOff = (fallback: string, described?: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .refine((value) => value === 'off' || validateCron(value), {
      message: `must be a cron expression, for example "${fallback}"${described ? ` (${described})` : ''}, or off`,
    });

/** A duration such as `30d` or `15m`, or `off` (parsed to undefined: never). */
export const durationOrOff = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((value, ctx) => {
      if (value === 'off') return undefined;
      const ms = parseDuration(value);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration such as ${fallback}, 12h or 15m, or off`,
        });
        return z.NEVER;
      }
      return ms;
    });

/** `true` or `false` (any case), with a default. */
export const trueOrFalse = (fallback: 'true' | 'false') =>
  z
    .string()
    .trim()
    .toLowerCase()
    .default(fallback)
    .refine((value) => value === 'true' || value === 'false', { message: 'must be true or false' })
    .transform((value) => value === 'true');

/** A port number 1–65535, or 0 for "any free one". */
export const portNumber = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(65535, 'must be at most 65535')
    .default(fallback);

/** A host name or IP address to bind to. */
export const bindAddress = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .refine((value) => /^[A-Za-z0-9.:_-]+$/.test(value) && value !== '', {
      message: 'must be an IP address or a host name, for example 127.0.0.1 or 0.0.0.0',
    });
