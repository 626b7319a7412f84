import { describe, expect, it } from 'vitest';
import { refundIdsOf } from '../../src/polling/index.ts';

/** GET /refunds: the interface document does not show its body; paysync reads it tolerantly. */
describe('refundIdsOf', () => {
  it.each([
    ['a bare array, numeric ids', [{ id: 7 }, { id: 8, status: 'pending' }], ['7', '8']],
    ['an array of text ids', [{ id: 'rf_1' }], ['rf_1']],
    ['an envelope under data', { data: [{ id: 3 }], total: 1 }, ['3']],
    ['an envelope under items', { items: [{ id: 4 }] }, ['4']],
    ['an envelope under refunds', { refunds: [{ id: 5 }] }, ['5']],
    ['an empty list', [], []],
    ['an empty envelope', { data: [] }, []],
    [
      'refunds of payments left out (they are not fetched by GET /refunds/{id})',
      [
        { id: 1, transactionId: 'tr_a' },
        { id: 2, transactionId: 'pi_b' },
        { id: 3, paymentIntentId: 'pi_c' },
      ],
      ['1'],
    ],
    ['only refunds of payments', [{ id: 2, transactionId: 'pi_b' }], []],
  ])('%s', (_name, body, ids) => {
    expect(refundIdsOf(body)).toEqual(ids);
  });

  it.each([
    ['no list at all', { total: 3 }],
    ['records without ids', [{ refundId: 1 }, { ref: 'x' }]],
    ['a text body', 'OK'],
    ['null', null],
    ['an unsafe integer id', [{ id: 2 ** 60 }]],
  ])('%s: unreadable (undefined), nothing guessed', (_name, body) => {
    expect(refundIdsOf(body)).toBeUndefined();
  });
});
