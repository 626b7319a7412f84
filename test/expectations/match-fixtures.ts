import type { MatchableExpectation, SettledItem } from '../../src/expectations/index.ts';

export const NOW = '2026-03-10T00:00:00.000Z';

export function expectation(overrides: Partial<MatchableExpectation> = {}): MatchableExpectation {
  return {
    id: 1,
    expectation_id: 'E-1',
    direction: 'out',
    item_kinds: null,
    currency: 'XOF',
    amount_min: 25000,
    amount_max: 25000,
    window_from: '2026-03-01T00:00:00.000Z',
    window_to: '2026-03-20T00:00:00.000Z',
    reference: null,
    item_id: null,
    counterparty: null,
    purchase_reference: null,
    description_pattern: null,
    allow_split: false,
    match_group: null,
    state: 'open',
    ...overrides,
  };
}

export function item(overrides: Partial<SettledItem> = {}): SettledItem {
  return {
    kind: 'transfer',
    id: 'tr_1',
    direction: 'out',
    currency: 'XOF',
    amount: 25000,
    settledAt: '2026-03-05T10:00:00.000Z',
    reference: 'other-ref',
    purchaseReference: null,
    counterparty: '221770000000',
    description: 'payout',
    originalId: null,
    status: 'successful',
    ...overrides,
  };
}
