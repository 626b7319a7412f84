import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { knownRefundIds } from '../ledger/index.ts';
import type { Logger } from '../logger.ts';
import { enqueueSync, type Queues } from '../queues/enqueue.ts';
import { kindOfId } from '../resources/index.ts';
import type { UpstreamClient } from '../upstream/index.ts';

export interface RefundDiscoveryDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: Pick<UpstreamClient, 'listRefunds'>;
  readonly queues: Queues;
  readonly logger: Logger;
}

export interface RefundDiscovery {
  /** Refund ids the list held. */
  readonly listed: number;
  /** Of those, the ones paysync had never seen: a sync by id is queued for each. */
  readonly unknown: number;
  /** The list's body had no list of records with ids in it: nothing was learned from it. */
  readonly unreadable: boolean;
}

/** Envelope keys a list of records is looked for under, in order, when the body is no array. */
const LIST_KEYS = ['data', 'items', 'refunds', 'results', 'content'] as const;
const ID_CHUNK = 500;

/** A listed record that names a payment intent refunds a payment, not a transfer. */
function refundsAPayment(record: Record<string, unknown>): boolean {
  const original = record.transactionId ?? record.paymentIntentId;
  return kindOfId(original) === 'payment_intent';
}

/**
 * The transfer refund ids in a `GET /refunds` body, whose shape the interface document does not
 * show: an array of records, or an object holding one under a usual key. Undefined when neither.
 * Records that name a payment intent are left out: `GET /refunds/{id}` is for transfer refunds.
 */
export function refundIdsOf(body: unknown): string[] | undefined {
  let records: unknown = body;
  if (!Array.isArray(records) && records !== null && typeof records === 'object') {
    const envelope = records as Record<string, unknown>;
    records = LIST_KEYS.map((key) => envelope[key]).find((value) => Array.isArray(value));
  }
  if (!Array.isArray(records)) return undefined;
  const ids: string[] = [];
  let readable = 0;
  for (const record of records) {
    if (record === null || typeof record !== 'object') continue;
    const fields = record as Record<string, unknown>;
    const id =
      typeof fields.id === 'number' && Number.isSafeInteger(fields.id)
        ? String(fields.id)
        : typeof fields.id === 'string' && fields.id.trim() !== ''
          ? fields.id.trim()
          : undefined;
    if (id === undefined) continue;
    readable += 1;
    if (!refundsAPayment(fields)) ids.push(id);
  }
  // Records none of which has an id: a shape this code does not know, so nothing is guessed.
  return records.length > 0 && readable === 0 ? undefined : ids;
}

/**
 * Finds transfer refunds that no webhook told paysync about. Sweeps walk the intent and transfer
 * lists by creation time; refunds have only `GET /refunds`, with no window or paging documented,
 * so this reads it whole and queues a sync by id (the documented `GET /refunds/{id}`, the same
 * job a webhook leads to) for every refund the mirror does not hold. The list's records are never
 * booked from: their shape is not documented. Refunds already known are the janitor's to re-poll.
 * Payment refunds have no list at all: one whose every webhook was lost stays unknown here, and
 * shows as balance drift on the collection account.
 */
export async function discoverRefunds(deps: RefundDiscoveryDependencies): Promise<RefundDiscovery> {
  const body = await deps.upstream.listRefunds();
  const ids = refundIdsOf(body);
  if (ids === undefined) {
    deps.logger.warn(
      { shape: Array.isArray(body) ? 'array' : typeof body },
      'GET /refunds answered a body with no list of refunds in it; refunds whose webhooks were lost cannot be found this sweep',
    );
    return { listed: 0, unknown: 0, unreadable: true };
  }
  const listed = [...new Set(ids)];
  const known = new Set<string>();
  for (let start = 0; start < listed.length; start += ID_CHUNK) {
    const found = await knownRefundIds(deps.db, 'refund', listed.slice(start, start + ID_CHUNK));
    for (const id of found) known.add(id);
  }
  const unknown = listed.filter((id) => !known.has(id));
  for (const id of unknown) await enqueueSync(deps.queues, { kind: 'refund', id, via: 'sweep' });
  if (unknown.length > 0) {
    deps.logger.info(
      { listed: listed.length, unknown: unknown.length },
      'refunds no webhook announced: syncs queued',
    );
  }
  return { listed: listed.length, unknown: unknown.length, unreadable: false };
}
