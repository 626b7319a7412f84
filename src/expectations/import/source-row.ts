import type { ExpectationProblem } from '../expectation-input.ts';

/** One row of a file, as read: its fields as written, or why it cannot even be read. */
export type SourceRow =
  | { readonly line: number; readonly raw: Record<string, unknown> }
  | { readonly line: number; readonly problem: ExpectationProblem };

/** The file as a whole cannot be loaded (its header, its format); nothing is read from it. */
export class ExpectationFileError extends Error {
  override readonly name = 'ExpectationFileError';
}

export const AMOUNT_MAJOR_HINT =
  'amount_major is not supported: amounts are whole minor units (2500 for 25.00 EUR) in amount, or amount_min and amount_max';
