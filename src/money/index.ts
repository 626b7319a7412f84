/** Money shown to people: integer minor units in, the human form out, never through floats. */
export { currencyExponent, formatAmount, formatMinorAndHuman } from './format-amount.ts';
