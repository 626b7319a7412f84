import { describe, expect, it } from 'vitest';
import { pairServiceBalances } from '../../src/ledger/index.ts';

describe("pairing the service's balances with the ledger's service accounts", () => {
  it('pairs each listed balance, and adds non-zero ledger accounts the service did not list, with no service balance (never 0)', () => {
    const pairs = pairServiceBalances(
      [
        { accountType: 'transfer', currency: 'XOF', amount: 500 },
        { accountType: 'collection', currency: 'XOF', amount: 0 },
      ],
      [
        { account: 'service:transfer', currency: 'XOF', balance: 450 },
        { account: 'service:transfer-irt', currency: 'EUR', balance: 70 },
        { account: 'service:cross-border', currency: 'XOF', balance: 0 },
        { account: 'income:payments', currency: 'XOF', balance: -900 },
      ],
    );
    expect(pairs).toEqual([
      { accountType: 'transfer', currency: 'XOF', service: 500, ledger: 450, listed: true },
      { accountType: 'collection', currency: 'XOF', service: 0, ledger: 0, listed: true },
      { accountType: 'transfer-irt', currency: 'EUR', service: null, ledger: 70, listed: false },
    ]);
  });
});
