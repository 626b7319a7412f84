import { z } from 'zod';
import { cronOrOff, type Parsed } from './fields.ts';

// Expectations: what the merchant expected to receive and to pay (docs/expectations.md).

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
};

export type AllExpected = 'off' | 'in' | 'out' | 'both';

export interface ExpectationSettings {
  /** Directions whose unclaimed settled items are `unexpected` breaks. @defaultValue `off` */
  readonly allExpected: AllExpected;
  /** The overdue check's schedule; `off` turns the task off. @defaultValue `*\/5 * * * *` */
  readonly cron: string;
}

export function expectationSettings(e: Parsed<typeof EXPECTATION_VARIABLES>): ExpectationSettings {
  return Object.freeze({
    allExpected: e.PAYSYNC_EXPECTATIONS_ALL_EXPECTED,
    cron: e.PAYSYNC_EXPECTATIONS_CRON,
  });
}
