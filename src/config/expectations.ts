import { z } from 'zod';
import { cronOrOff, type Parsed } from './fields.ts';
import { BREAK_KINDS } from '../expectations/expectation-words.defaults.ts';

// Expectations: what the merchant expected to receive and to pay (docs/expectations.md).

/**
 * The kinds of expectation break (docs/expectations.md, "Breaks"), declared once in
 * src/expectations (a leaf of constants config may read); src/expectations exports them as
 * BREAK_KINDS.
 */
export const EXPECTATION_BREAK_KINDS = BREAK_KINDS;

export type ExpectationBreakKindSetting = (typeof EXPECTATION_BREAK_KINDS)[number];

export const EXPECTATION_VARIABLES = {
  /**
   * When the `expectations` task marks open expectations whose window has passed as `overdue`
   * (cron), or `off`. @defaultValue `*\/5 * * * *` (every 5 minutes)
   */
  PAYSYNC_EXPECTATIONS_CRON: cronOrOff('*/5 * * * *', 'every 5 minutes'),
  /**
   * Which settled items the merchant says are all expected, so that one no expectation claims
   * is an `unexpected` break: `off`, `in` (money received), `out` (money paid) or `both`.
   * @defaultValue `off`
   */
  PAYSYNC_EXPECTATIONS_ALL_EXPECTED: z
    .string()
    .trim()
    .toLowerCase()
    .default('off')
    .transform((value) => (value === '' ? 'off' : value))
    .pipe(
      z.enum(['off', 'in', 'out', 'both'], {
        message: 'must be off, in, out or both',
      }),
    ),
  /**
   * Which kinds of open expectation break make the day's verdict `BREAKS`, comma-separated
   * (`missing,amount_mismatch`), or `none` to only count them in the report.
   * @defaultValue `missing`
   */
  PAYSYNC_EXPECTATIONS_BREAK_VERDICT: z
    .string()
    .trim()
    .toLowerCase()
    .default('missing')
    .transform((value, ctx) => {
      if (value === '') return ['missing' as const];
      if (value === 'none') return [];
      const kinds = [...new Set(value.split(',').map((part) => part.trim()))];
      const unknown = kinds.filter(
        (kind) => !(EXPECTATION_BREAK_KINDS as readonly string[]).includes(kind),
      );
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `must be none or a comma-separated list of ${EXPECTATION_BREAK_KINDS.join(', ')} (not ${unknown.join(', ')})`,
        });
        return z.NEVER;
      }
      return kinds as ExpectationBreakKindSetting[];
    }),
};

export type AllExpected = 'off' | 'in' | 'out' | 'both';

export interface ExpectationSettings {
  /** Directions whose unclaimed settled items are `unexpected` breaks. @defaultValue `off` */
  readonly allExpected: AllExpected;
  /** The overdue check's schedule; `off` turns the task off. @defaultValue `*\/5 * * * *` */
  readonly cron: string;
  /** Kinds of open expectation break that make the day `BREAKS`. @defaultValue `['missing']` */
  readonly breakVerdict: readonly ExpectationBreakKindSetting[];
}

export function expectationSettings(e: Parsed<typeof EXPECTATION_VARIABLES>): ExpectationSettings {
  return Object.freeze({
    allExpected: e.PAYSYNC_EXPECTATIONS_ALL_EXPECTED,
    cron: e.PAYSYNC_EXPECTATIONS_CRON,
    breakVerdict: Object.freeze([...e.PAYSYNC_EXPECTATIONS_BREAK_VERDICT]),
  });
}
