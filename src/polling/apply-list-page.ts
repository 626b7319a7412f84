import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { inboxMentionedResources } from '../inbox/index.ts';
import {
  applyBatch,
  firstSightingsVia,
  isTerminal,
  type ApplyOutcome,
  type LedgerFetchedState,
  type Observation,
} from '../ledger/index.ts';
import type { PaymentIntent, Transfer } from '../upstream/index.ts';
import type { ListStream } from './list-streams.ts';
import { countOutcome, emptyTally, type PageTally } from './page-tally.ts';

/**
 * Applies listed items to the ledger inside the caller's transaction as one batch, through the
 * ledger's batch apply (the books a sync job's apply would make, item by item): the list answer
 * is the authoritative state, so nothing is fetched again, and the mirror's `updatedAt` guard
 * makes an older page harmless.
 */
export async function applyListedItems(
  trx: Kysely<Database>,
  stream: ListStream,
  items: readonly (PaymentIntent | Transfer)[],
  observation: Observation,
): Promise<{ tally: PageTally; outcomes: ApplyOutcome[] }> {
  const tally = emptyTally();
  const outcomes = await applyBatch(
    trx,
    items.map((item) => ({
      fetched: { kind: stream.ledgerKind, state: item } as LedgerFetchedState,
      observation,
    })),
  );
  for (const outcome of outcomes) countOutcome(tally, outcome);
  if (observation.via === 'sweep')
    tally.missed += await allWebhooksMissed(trx, stream, items, outcomes);
  return { tally, outcomes };
}

/**
 * How many items this apply is the moment to count as missed by webhooks: each has just
 * become final in the mirror, paysync first learned of it from a sweep, and no webhook has
 * named it. Counting on reaching a final state, not on first sighting, means an item whose
 * first webhook was lost but whose later ones arrived is not counted: the count is the items
 * whose every webhook was lost. Each item reaches its first final state once, so it is
 * counted once.
 */
async function allWebhooksMissed(
  trx: Kysely<Database>,
  stream: ListStream,
  items: readonly (PaymentIntent | Transfer)[],
  outcomes: readonly ApplyOutcome[],
): Promise<number> {
  const final = items.filter((_, index) => {
    const outcome = outcomes[index]!;
    return (
      outcome.changed &&
      isTerminal(outcome.status) &&
      (outcome.previousStatus === undefined || !isTerminal(outcome.previousStatus))
    );
  });
  if (final.length === 0) return 0;
  const firstVia = await firstSightingsVia(
    trx,
    stream.ledgerKind,
    final.map((item) => item.id),
  );
  const firstSeenBySweep = final.filter((item) => firstVia.get(item.id) === 'sweep');
  if (firstSeenBySweep.length === 0) return 0;
  const mentioned = await inboxMentionedResources(
    trx,
    stream.ledgerKind,
    firstSeenBySweep.map((item) => {
      const reference =
        stream.ledgerKind === 'transfer'
          ? (item as Transfer).reference
          : (item as PaymentIntent).purchaseReference;
      return { id: item.id, ...(reference ? { reference } : {}) };
    }),
  );
  const missed = firstSeenBySweep.filter((item) => !mentioned.has(item.id)).length;
  return missed;
}
