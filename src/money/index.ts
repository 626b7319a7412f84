/**
 * Money's shared words: each currency's minor unit (ISO 4217; an unknown currency is an error,
 * never a guess), and amounts in integer minor units turned into decimal and human forms,
 * never through floats.
 */
export { currencyExponent, isKnownCurrency, UnknownCurrencyError } from './currency-exponent.ts';
export { decimalAmount } from './decimal-amount.ts';
export { formatAmount, formatMinorAndHuman } from './format-amount.ts';
