import type { ResourceHandle } from '../inbox/index.ts';
import { transferReferenceOf, type LedgerFetchedState } from '../ledger/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import { ContractError, formatPath, NotFoundError, paymentRefundState } from '../upstream/index.ts';
import { resolveTransferReference } from './resolve-transfer-reference.ts';
import {
  CLOCK_SKEW_MS,
  REFERENCE_LOOKBACK_MS,
  type FetchDependencies,
} from './sync-dependencies.ts';
import { UnknownResourceError } from './unknown-resource-error.ts';

/** The service's authoritative state of one resource, ready for the ledger (its own type). */
export type FetchedState = LedgerFetchedState;

export interface FetchResult {
  readonly states: readonly FetchedState[];
  /** The resource as now known (id and reference), for closing its inbox rows. */
  readonly handle: ResourceHandle;
}

type LedgerTarget = SyncJobData & { kind: FetchedState['kind'] };

/** The item a fetched state is, by kind, id and reference: what its fetch coverage is kept under. */
export function itemOfFetched(fetched: FetchedState) {
  switch (fetched.kind) {
    case 'payment_intent':
      return {
        kind: fetched.kind,
        id: fetched.state.id,
        reference: fetched.state.purchaseReference,
      };
    case 'transfer':
      return { kind: fetched.kind, id: fetched.state.id, reference: fetched.state.reference };
    case 'refund':
      return { kind: fetched.kind, id: String(fetched.state.id) };
    case 'payment_refund':
      return { kind: fetched.kind, id: String(fetched.state.id) };
  }
}

function lookupWindow(deps: FetchDependencies): { from: Date; to: Date } {
  const now = deps.now().getTime();
  return { from: new Date(now - REFERENCE_LOOKBACK_MS), to: new Date(now + CLOCK_SKEW_MS) };
}

async function fetchPaymentIntents(
  deps: FetchDependencies,
  target: LedgerTarget,
): Promise<FetchResult> {
  if (target.id) {
    const intent = await deps.upstream.getPaymentIntent(target.id);
    return {
      states: [{ kind: 'payment_intent', state: intent }],
      handle: { kind: 'payment_intent', id: intent.id, reference: intent.purchaseReference },
    };
  }
  const reference = target.reference!;
  const listed = await deps.upstream.listPaymentIntents({
    purchaseReference: reference,
    ...lookupWindow(deps),
    perPage: 100,
  });
  const intents = listed.filter((intent) => intent.purchaseReference === reference);
  if (intents.length === 0) {
    throw new UnknownResourceError(
      'payment_intent',
      reference,
      'no payment intent has this purchase reference',
    );
  }
  return {
    states: intents.map((state) => ({ kind: 'payment_intent' as const, state })),
    handle: { kind: 'payment_intent', reference },
  };
}

async function fetchTransfer(deps: FetchDependencies, target: LedgerTarget): Promise<FetchResult> {
  let reference = target.reference;
  if (target.id && !reference) {
    const resolved = await resolveTransferReference(deps, target.id, undefined);
    if (resolved.found) {
      return {
        states: [{ kind: 'transfer', state: resolved.found }],
        handle: { kind: 'transfer', id: resolved.found.id, reference: resolved.reference },
      };
    }
    reference = resolved.reference;
  }
  const listed = await deps.upstream.listTransfers({
    reference: reference!,
    ...lookupWindow(deps),
    perPage: 100,
  });
  const transfers = listed.filter(
    (transfer) =>
      transfer.reference === reference && (target.id === undefined || transfer.id === target.id),
  );
  if (transfers.length === 0) {
    throw new UnknownResourceError(
      'transfer',
      target.id ?? reference!,
      `GET /transfers?reference=${reference} has no such transfer`,
    );
  }
  return {
    states: transfers.map((state) => ({ kind: 'transfer' as const, state })),
    handle: { kind: 'transfer', id: target.id ?? transfers[0]!.id, reference },
  };
}

async function fetchPaymentRefund(deps: FetchDependencies, id: string): Promise<FetchResult> {
  const body = await deps.upstream.getPaymentRefundStatus(Number(id));
  // The status response is "not shown" upstream; the ledger's schema says what it must hold.
  const parsed = paymentRefundState.safeParse(body);
  if (!parsed.success) {
    throw new ContractError(
      parsed.error.issues.map((issue) => ({
        path: formatPath(issue.path),
        message: issue.message,
      })),
      { operationId: 'getPaymentRefundStatus', status: 200, body },
    );
  }
  return {
    states: [{ kind: 'payment_refund', state: parsed.data }],
    handle: { kind: 'payment_refund', id },
  };
}

/**
 * A refund is booked against the account its transfer was paid from, which the ledger reads
 * from the mirror. A transfer never mirrored yet is fetched first and applied just before the
 * refund; if the service cannot find it, the refund is booked as the ledger decides alone.
 */
async function fetchRefund(deps: FetchDependencies, target: LedgerTarget): Promise<FetchResult> {
  const refund = await deps.upstream.getRefund(target.id!);
  const states: FetchedState[] = [];
  if (!(await transferReferenceOf(deps.db, refund.transactionId))) {
    try {
      const transfer = await fetchTransfer(deps, {
        kind: 'transfer',
        id: refund.transactionId,
        via: target.via,
      });
      states.push(...transfer.states);
    } catch (error) {
      if (!(error instanceof UnknownResourceError || error instanceof NotFoundError)) throw error;
    }
  }
  states.push({ kind: 'refund', state: refund });
  return { states, handle: { kind: 'refund', id: String(refund.id) } };
}

/**
 * Fetches the authoritative state of the resource a sync job names: by id where the service
 * allows it, by reference where it does not (transfers, intents known only by reference).
 */
export async function fetchResourceState(
  deps: FetchDependencies,
  target: LedgerTarget,
): Promise<FetchResult> {
  switch (target.kind) {
    case 'payment_intent':
      return fetchPaymentIntents(deps, target);
    case 'transfer':
      return fetchTransfer(deps, target);
    case 'refund':
      return fetchRefund(deps, target);
    case 'payment_refund':
      return fetchPaymentRefund(deps, target.id!);
  }
}
