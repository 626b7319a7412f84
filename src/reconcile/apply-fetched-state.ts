import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  type ApplyOutcome,
  type Observation,
} from '../ledger/index.ts';
import type { FetchedState } from './fetch-resource-state.ts';

/** Hands one fetched state to the ledger function for its kind, inside the caller's transaction. */
export function applyFetchedState(
  trx: Kysely<Database>,
  fetched: FetchedState,
  observation: Observation,
): Promise<ApplyOutcome> {
  switch (fetched.kind) {
    case 'payment_intent':
      return applyPaymentIntent(trx, fetched.state, observation);
    case 'transfer':
      return applyTransfer(trx, fetched.state, observation);
    case 'refund':
      return applyRefund(trx, fetched.state, observation);
    case 'payment_refund':
      return applyPaymentRefund(trx, fetched.state, observation);
  }
}
