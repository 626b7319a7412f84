import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { inboxMentionsResource } from '../inbox/index.ts';
import type { ApplyOutcome, Observation } from '../ledger/index.ts';
import { applyFetchedState, type FetchedState } from '../reconcile/index.ts';
import type { PaymentIntent, Transfer } from '../upstream/index.ts';
import type { ListStream } from './list-streams.ts';
import { countOutcome, emptyTally, type PageTally } from './page-tally.ts';

/**
 * Applies listed items to the ledger inside the caller's transaction, through the same path a
 * sync job uses: the list answer is the authoritative state, so nothing is fetched again, and
 * the mirror's `updatedAt` guard makes an older page harmless.
 */
export async function applyListedItems(
  trx: Kysely<Database>,
  stream: ListStream,
  items: readonly (PaymentIntent | Transfer)[],
  observation: Observation,
): Promise<{ tally: PageTally; outcomes: ApplyOutcome[] }> {
  const tally = emptyTally();
  const outcomes: ApplyOutcome[] = [];
  for (const item of items) {
    const fetched = { kind: stream.ledgerKind, state: item } as FetchedState;
    const outcome = await applyFetchedState(trx, fetched, observation);
    outcomes.push(outcome);
    countOutcome(tally, outcome);
    if (outcome.changed && outcome.previousStatus === undefined && observation.via === 'sweep') {
      const reference =
        stream.ledgerKind === 'transfer'
          ? (item as Transfer).reference
          : (item as PaymentIntent).purchaseReference;
      const named = await inboxMentionsResource(trx, {
        kind: stream.ledgerKind,
        id: item.id,
        ...(reference ? { reference } : {}),
      });
      if (!named) tally.missed += 1;
    }
  }
  return { tally, outcomes };
}
