import { describe, expect, it } from 'vitest';
import {
  currencyExponent,
  decimalAmount,
  formatAmount,
  formatMinorAndHuman,
  isKnownCurrency,
  UnknownCurrencyError,
} from '../../src/money/index.ts';

describe('currency exponents: ISO 4217, and an unknown currency is an error', () => {
  it.each([
    ['XOF', 0],
    ['EUR', 2],
    ['eur', 2],
    ['TND', 3],
    // ISO 4217 and the browser's CLDR table disagree on these; the service speaks ISO 4217.
    ['IDR', 2],
    ['IQD', 3],
  ])('%s has %i decimals', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
    expect(isKnownCurrency(currency)).toBe(true);
  });

  it('refuses a code the table does not know, naming it, instead of assuming 2', () => {
    expect(() => currencyExponent('ZZZ')).toThrow(UnknownCurrencyError);
    expect(() => currencyExponent('ZZZ')).toThrow(
      /^unknown currency "ZZZ": not an ISO 4217 code paysync knows/,
    );
    expect(() => decimalAmount(150_050, 'ZZZ')).toThrow(UnknownCurrencyError);
    expect(isKnownCurrency('ZZZ')).toBe(false);
  });
});

describe('amounts in minor units, never through floats', () => {
  it.each([
    [150_050, 'EUR', '1500.50'],
    [-5, 'EUR', '-0.05'],
    [150_000, 'XOF', '150000'],
    [1, 'TND', '0.001'],
    [9_007_199_254_740_991n, 'EUR', '90071992547409.91'],
  ])('decimalAmount(%s, %s) = %s', (minor, currency, decimal) => {
    expect(decimalAmount(minor, currency)).toBe(decimal);
  });

  it.each([
    [12_345, 'EUR', '123.45 EUR'],
    [-12_345, 'EUR', '-123.45 EUR'],
    [1_250_000, 'XOF', '1,250,000 XOF'],
    [1_234_567, 'TND', '1,234.567 TND'],
    [5, 'EUR', '0.05 EUR'],
  ])('formatAmount(%i, %s) = %s', (minor, currency, human) => {
    expect(formatAmount(minor, currency)).toBe(human);
  });

  it('shows an unknown currency in minor units as stored, saying so, rather than guessing', () => {
    expect(formatAmount(150_050, 'ZZZ')).toBe('150050 ZZZ (minor units)');
    expect(formatMinorAndHuman(150_000, 'XOF')).toBe('150000 XOF = 150,000 XOF');
  });
});
