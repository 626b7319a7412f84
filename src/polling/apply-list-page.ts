import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { inboxMentionsResource } from '../inbox/index.ts';
import {
  firstSightingVia,
  isTerminal,
  type ApplyOutcome,
  type Observation,
} from '../ledger/index.ts';
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
    if (observation.via === 'sweep' && (await allWebhooksMissed(trx, stream, item, outcome))) {
      tally.missed += 1;
    }
  }
  return { tally, outcomes };
}

/**
 * Whether this apply is the moment to count the item as missed by webhooks: it has just
 * become final in the mirror, paysync first learned of it from a sweep, and no webhook has
 * named it. Counting on reaching a final state, not on first sighting, means an item whose
 * first webhook was lost but whose later ones arrived is not counted: the count is the items
 * whose every webhook was lost. Each item reaches its first final state once, so it is
 * counted once.
 */
async function allWebhooksMissed(
  trx: Kysely<Database>,
  stream: ListStream,
  item: PaymentIntent | Transfer,
  outcome: ApplyOutcome,
): Promise<boolean> {
  const becameFinal =
    outcome.changed &&
    isTerminal(outcome.status) &&
    (outcome.previousStatus === undefined || !isTerminal(outcome.previousStatus));
  if (!becameFinal) return false;
  if ((await firstSightingVia(trx, stream.ledgerKind, item.id)) !== 'sweep') return false;
  const reference =
    stream.ledgerKind === 'transfer'
      ? (item as Transfer).reference
      : (item as PaymentIntent).purchaseReference;
  return !(await inboxMentionsResource(trx, {
    kind: stream.ledgerKind,
    id: item.id,
    ...(reference ? { reference } : {}),
  }));
}
