import { describe, expect, it } from 'vitest';
import { parseExpectationInput } from '../../src/expectations/index.ts';

const base = {
  expectation_id: 'order-4711',
  direction: 'in',
  currency: 'XOF',
  amount: 25000,
  window_from: '2030-01-10',
  window_to: '2030-01-12',
};

function problemOf(raw: Record<string, unknown>, timeZone = 'UTC') {
  const result = parseExpectationInput(raw, { timeZone });
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value.content)}`);
  return result.problem;
}

function contentOf(raw: Record<string, unknown>, timeZone = 'UTC') {
  const result = parseExpectationInput(raw, { timeZone });
  if (!result.ok) throw new Error(`${result.problem.field}: ${result.problem.reason}`);
  return result.value;
}

describe('one expectation as written', () => {
  it('an exact amount becomes min = max; bare dates are whole days in the books time zone', () => {
    const { content } = contentOf(base);
    expect(content).toMatchObject({
      amount_min: 25000,
      amount_max: 25000,
      window_from: '2030-01-10T00:00:00.000Z',
      // Through the 12th: up to the start of the 13th.
      window_to: '2030-01-13T00:00:00.000Z',
      item_kinds: null,
      allow_split: false,
      metadata: {},
    });
    // Paris is UTC+1 in January: its 10 January starts at 23:00 UTC the day before.
    const paris = contentOf(base, 'Europe/Paris').content;
    expect(paris.window_from).toBe('2030-01-09T23:00:00.000Z');
    expect(paris.window_to).toBe('2030-01-12T23:00:00.000Z');
  });

  it('CSV cells (text) and JSON values give the same content and the same hash', () => {
    const fromCsv = contentOf({
      expectation_id: ' order-4711 ',
      direction: 'in',
      currency: 'xof',
      amount: '25000',
      window_from: '2030-01-10',
      window_to: '2030-01-12',
      reference: '',
      item_kinds: 'payment_link;payment_intent;payment_link',
      allow_split: 'FALSE',
      metadata: { customer: 'C-88' },
    });
    const fromJson = contentOf({
      ...base,
      item_kinds: ['payment_intent', 'payment_link'],
      allow_split: false,
      metadata: { customer: 'C-88' },
    });
    expect(fromCsv.content).toEqual(fromJson.content);
    expect(fromCsv.contentHash).toBe(fromJson.contentHash);
    expect(fromCsv.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the hash does not depend on the order of keys, and changes with any content', () => {
    const a = contentOf({ ...base, metadata: { a: 1, b: 'x' } });
    const b = contentOf({
      metadata: { b: 'x', a: 1 },
      window_to: base.window_to,
      window_from: base.window_from,
      amount: 25000,
      currency: 'XOF',
      direction: 'in',
      expectation_id: 'order-4711',
    });
    expect(b.contentHash).toBe(a.contentHash);
    expect(contentOf({ ...base, metadata: { a: 2, b: 'x' } }).contentHash).not.toBe(a.contentHash);
    expect(contentOf({ ...base, amount: 25001 }).contentHash).not.toBe(contentOf(base).contentHash);
  });

  it('bounds: amount_min and amount_max, min <= max', () => {
    const { content } = contentOf({
      ...base,
      amount: undefined,
      amount_min: 99000,
      amount_max: '100000',
    });
    expect([content.amount_min, content.amount_max]).toEqual([99000, 100000]);
    expect(problemOf({ ...base, amount: undefined, amount_min: 5, amount_max: 4 })).toEqual({
      field: 'amount_min',
      reason: '5 is more than amount_max 4',
    });
  });

  it.each([
    [
      'a decimal amount',
      { amount: '250.50' },
      'amount',
      /whole, non-negative number of minor units/,
    ],
    ['a float amount', { amount: 250.5 }, 'amount', /whole, non-negative/],
    ['a negative amount', { amount: -1 }, 'amount', /non-negative/],
    ['an unsafe integer', { amount: 2 ** 53 }, 'amount', /whole/],
    ['no amount', { amount: undefined }, 'amount', /is required/],
    ['amount and bounds', { amount_min: 1, amount_max: 2 }, 'amount', /not both/],
    [
      'half the bounds',
      { amount: undefined, amount_min: 1 },
      'amount_max',
      /required with amount_min/,
    ],
    ['an unknown currency', { currency: 'XYZ' }, 'currency', /ISO 4217/],
    ['a direction', { direction: 'sideways' }, 'direction', /in \(money to receive\) or out/],
    ['an impossible date', { window_from: '2030-02-30' }, 'window_from', /a date/],
    [
      'a time without a zone',
      { window_from: '2030-01-10T09:00:00' },
      'window_from',
      /with its zone/,
    ],
    ['a window the wrong way', { window_from: '2030-01-13' }, 'window_from', /is after window_to/],
    ['no window end', { window_to: '' }, 'window_to', /is required/],
    ['no id', { expectation_id: '  ' }, 'expectation_id', /is required/],
    ['a tab in the id', { expectation_id: 'a\tb' }, 'expectation_id', /control characters/],
    [
      'a kind of the other direction',
      { item_kinds: 'transfer' },
      'item_kinds',
      /transfer cannot pay an expectation of direction in/,
    ],
    ['allow_split not boolean', { allow_split: 'yes' }, 'allow_split', /true or false/],
    [
      'a nested metadata value',
      { metadata: { a: { b: 1 } } },
      'metadata.a',
      /text, numbers or true\/false/,
    ],
    ['an unknown field', { amount_major: '250' }, 'amount_major', /unknown field/],
  ])('refuses %s, naming the field', (_what, change, field, reason) => {
    const problem = problemOf({ ...base, ...change });
    expect(problem.field).toBe(field);
    expect(problem.reason).toMatch(reason);
  });

  it('out: transfers and refunds of payments; a window of one instant is allowed', () => {
    const { content } = contentOf({
      ...base,
      direction: 'out',
      item_kinds: 'transfer;payment_refund',
      window_from: '2030-01-10T09:00:00Z',
      window_to: '2030-01-10T11:00:00+02:00',
    });
    expect(content.item_kinds).toEqual(['payment_refund', 'transfer']);
    expect(content.window_from).toBe(content.window_to);
  });
});
