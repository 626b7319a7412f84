import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import {
  importExpectations,
  markOverdue,
  matchSettledItems,
  type MatchingSettings,
  type SourceRow,
} from '../../../src/expectations/index.ts';
import { item } from '../../expectations/match-fixtures.ts';
import { settle } from '../../expectations/support/matching-rows.ts';

/** The ops tests' clock: every expectation below is judged at this instant. */
export const EXPECTATIONS_NOW = '2026-03-10T00:00:00.000Z';
export const COUNTERPARTY = '221770001234';

const settings: MatchingSettings = { environment: 'sandbox', allExpected: 'off' };

async function* rows(items: readonly Record<string, unknown>[]): AsyncGenerator<SourceRow> {
  for (const [index, raw] of items.entries()) yield { line: index + 1, raw };
}

/**
 * Books with one expectation of each kind the ops pages show, made by the domain itself:
 * `payroll-late` overdue with a `missing` break, `payout-7` paid 10 XOF short (an
 * `amount_mismatch` break), `order-4711` open, and `order-4712` matched.
 */
export async function seedExpectationBooks(db: Kysely<Database>): Promise<void> {
  const now = () => new Date(EXPECTATIONS_NOW);
  const loaded = await importExpectations(
    db,
    { environment: 'sandbox', now },
    rows([
      {
        expectation_id: 'payroll-late',
        direction: 'out',
        currency: 'XOF',
        amount: 25000,
        window_from: '2026-03-01T00:00:00.000Z',
        window_to: '2026-03-05T00:00:00.000Z',
        counterparty: COUNTERPARTY,
        metadata: { run: 'payroll-2026-03' },
      },
      {
        expectation_id: 'payout-7',
        direction: 'out',
        currency: 'XOF',
        amount: 25000,
        item_id: 'tr_7',
        window_from: '2026-03-01T00:00:00.000Z',
        window_to: '2026-03-20T00:00:00.000Z',
      },
      {
        expectation_id: 'order-4711',
        direction: 'in',
        currency: 'XOF',
        amount: 5000,
        window_from: '2026-03-01T00:00:00.000Z',
        window_to: '2026-03-20T00:00:00.000Z',
        reference: 'order-4711',
      },
      {
        expectation_id: 'order-4712',
        direction: 'out',
        currency: 'XOF',
        amount: 7000,
        item_id: 'tr_8',
        window_from: '2026-03-01T00:00:00.000Z',
        window_to: '2026-03-20T00:00:00.000Z',
      },
    ]),
    { source: 'test', actor: 'test', timeZone: 'UTC' },
  );
  if (!loaded.loaded) throw new Error(`seed refused: ${JSON.stringify(loaded.bad)}`);
  await db.transaction().execute(async (trx) => {
    const paid = [
      item({ id: 'tr_7', amount: 24990, settledAt: '2026-03-06T10:00:00.000Z' }),
      item({ id: 'tr_8', amount: 7000, settledAt: '2026-03-06T11:00:00.000Z' }),
    ];
    for (const settled of paid) await settle(trx, settled);
    await matchSettledItems(trx, paid, EXPECTATIONS_NOW, settings);
  });
  await markOverdue(db, EXPECTATIONS_NOW, settings);
}
