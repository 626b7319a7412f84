import { stringify, type Options } from 'csv-stringify/sync';

/**
 * The characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection";
 * CWE-1236): `=`, `+`, `-`, `@`, a tab, a carriage return, and the full-width `＝＋－＠` that
 * some spreadsheets fold into them.
 */
const FORMULA_START = '=+\\-@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20';

/**
 * A text cell that needs the quote: one that starts with a formula character, or with quotes
 * and then one (so that a value that already began with `'=` still reads back exactly).
 */
const NEEDS_QUOTE = new RegExp(`^'*[${FORMULA_START}]`);

/**
 * The one rule of every CSV paysync writes (docs/exports.md, "CSV and spreadsheets"): a text
 * cell a spreadsheet would run as a formula gets a leading `'`. To read the original back,
 * strip one leading `'` when what follows it is quotes and then one of those characters.
 * Numbers are not text: csv-stringify hands only strings to this rule, so `-500` stays a number.
 */
export function neutraliseCsvText(text: string): string {
  return NEEDS_QUOTE.test(text) ? `'${text}` : text;
}

/**
 * csv-stringify with the rule applied to every text cell; a neutralised cell is always quoted
 * (as OWASP describes). Every CSV writer of paysync goes through here (an ESLint rule keeps
 * csv-stringify imported nowhere else).
 */
export function stringifyCsv(records: readonly unknown[], options: Options = {}): string {
  return stringify([...records], {
    ...options,
    cast: {
      ...options.cast,
      string: (value) => {
        const safe = neutraliseCsvText(value);
        return safe === value ? value : { value: safe, quoted: true };
      },
    },
  });
}
