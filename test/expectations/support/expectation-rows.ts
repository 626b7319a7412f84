import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import type { ExpectationBreakKind } from '../../../src/expectations/index.ts';

/**
 * A break row as matching would write it (matching is another helper's; these tests only
 * resolve breaks). Returns its id.
 */
export async function insertBreak(
  db: Kysely<Database>,
  options: {
    kind: ExpectationBreakKind;
    expectation?: number | null;
    difference?: number | null;
    currency?: string;
    environment?: string;
    detectedAt?: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('expectation_breaks')
    .values({
      environment: options.environment ?? 'sandbox',
      expectation: options.expectation ?? null,
      item_kind: 'transfer',
      item_id: `tr_${randomUUID().slice(0, 8)}`,
      kind: options.kind,
      difference: options.difference === undefined ? null : options.difference,
      currency: options.currency ?? 'XOF',
      explanation: `A ${options.kind} break made by the test.`,
      suggested_action: 'Look at it.',
      state: 'open',
      resolved_by: null,
      resolved_at: null,
      resolution_reason: null,
      dedupe_key: randomUUID(),
      detected_at: options.detectedAt ?? '2030-01-10T09:00:00.000Z',
      updated_at: options.detectedAt ?? '2030-01-10T09:00:00.000Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
