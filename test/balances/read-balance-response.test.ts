import { describe, expect, it } from 'vitest';
import { readBalanceResponse } from '../../src/balances/index.ts';

const expected = [
  { accountType: 'collection', currency: 'XOF', amount: 1_250_000 },
  { accountType: 'transfer', currency: 'XOF', amount: 300 },
  { accountType: 'transfer-irt', currency: 'EUR', amount: -15 },
];

describe('reading the balance response, whose fields the document does not show', () => {
  it.each([
    [
      'the simulator list: { date, balances: [{ accountType, currency, amount }] }',
      {
        date: '2026-11-21T00:00:00.000Z',
        balances: [
          { accountType: 'collection', currency: 'XOF', amount: 1_250_000 },
          { accountType: 'transfer', currency: 'XOF', amount: 300 },
          { accountType: 'transfer-irt', currency: 'EUR', amount: -15 },
        ],
      },
    ],
    [
      'keyed by account type then currency: { asOf, balances: { transfer: { XOF: 300 } } }',
      {
        asOf: '2026-11-21T00:00:00Z',
        balances: {
          collection: { XOF: 1_250_000 },
          transfer: { XOF: 300 },
          transferIrt: { EUR: -15 },
        },
      },
    ],
    [
      'a data list, snake_case, nested string amounts',
      {
        timestamp: '2026-11-21T00:00:00.000Z',
        data: [
          { account_type: 'collection', currency_code: 'xof', available: { amount: '1250000' } },
          { account_type: 'transfer', currency_code: 'XOF', available: { amount: '300' } },
          { account_type: 'transfer_irt', currency_code: 'EUR', available: { amount: '-15' } },
        ],
      },
    ],
    [
      'account types at the top level with lists of { currency, balance }',
      {
        date: '2026-11-21T00:00:00.000Z',
        collection: [{ currency: 'XOF', balance: 1_250_000 }],
        transfer: [{ currency: 'XOF', balance: 300 }],
        'transfer-irt': [{ currency: 'EUR', balance: -15 }],
      },
    ],
  ])('%s', (_shape, body) => {
    const reading = readBalanceResponse(body);
    expect(reading).toEqual({
      ok: true,
      asOf: '2026-11-21T00:00:00.000Z',
      balances: expect.arrayContaining(expected) as unknown,
      unknownAccounts: [],
    });
    if (reading.ok) expect(reading.balances).toHaveLength(3);
  });

  it('keeps an unknown account type aside instead of guessing', () => {
    const reading = readBalanceResponse({
      balances: [
        { accountType: 'transfer', currency: 'XOF', amount: 5 },
        { accountType: 'escrow', currency: 'XOF', amount: 9 },
      ],
    });
    expect(reading).toEqual({
      ok: true,
      asOf: undefined,
      balances: [{ accountType: 'transfer', currency: 'XOF', amount: 5 }],
      unknownAccounts: ['escrow'],
    });
  });

  it.each([
    ['not an object', ['a', 'b'], 'the response is not a JSON object'],
    ['an unseen shape', { result: 'ok', total: '12' }, 'no list of balances was found'],
    [
      'a fractional amount (its unit would be a guess)',
      { balances: [{ accountType: 'transfer', currency: 'XOF', amount: 10.5 }] },
      'the transfer XOF balance is not an integer in minor units',
    ],
    [
      'a decimal string',
      { data: [{ account_type: 'transfer', currency: 'EUR', balance: '10.50' }] },
      'the transfer EUR balance is not an integer in minor units',
    ],
    [
      'no currency',
      { balances: [{ accountType: 'transfer', amount: 10 }] },
      'the transfer balance has no ISO 4217 currency',
    ],
    [
      'an envelope it does not recognise',
      {
        success: true,
        data: { balances: [{ accountType: 'transfer', currency: 'XOF', amount: 300 }] },
      },
      'no balance it can read: the response names no account type paysync knows (found balances',
    ],
    [
      'a map keyed by currency, then account type',
      { balances: { XOF: { collection: 1_250_000, transfer: 300 } } },
      'no balance it can read: the response names no account type paysync knows (found XOF',
    ],
    [
      'an empty list',
      { date: '2026-11-21T00:00:00.000Z', balances: [] },
      'the response lists no balance (an empty answer is not read as zero balances)',
    ],
    [
      'an amount above 2^53 as a JSON number',
      // Parsed as the client parses the body: the literal is already rounded by JSON.parse.
      JSON.parse(
        '{"balances":[{"accountType":"transfer","currency":"XOF","amount":9007199254740993}]}',
      ) as unknown,
      'the transfer XOF balance is an integer too large to hold exactly',
    ],
    [
      'an amount above 2^53 as a string',
      { balances: [{ accountType: 'transfer', currency: 'XOF', amount: '90071992547409930' }] },
      'the transfer XOF balance is an integer too large to hold exactly',
    ],
  ])('takes no number from %s', (_what, body, problem) => {
    const reading = readBalanceResponse(body);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.problem).toContain(problem);
  });
});
