import type { Executor } from '../db/index.ts';
import { kindOfId } from '../resources/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { MirrorRecord } from './mirror-records.ts';
import { findPaymentIntent } from './payment-intent.repository.ts';
import { findRefund } from './refund.repository.ts';
import { findTransfer } from './transfer.repository.ts';

/**
 * One mirrored resource by id: `pi_…`, `tr_…`, or a refund id (`123`, or `refund:123` /
 * `payment_refund:123` to say which; `kind` says which a bare number is). A bare number is
 * otherwise looked up as a transfer refund, then as a payment refund. Undefined when the mirror
 * has never seen it.
 */
export async function findMirrorRecord(
  db: Executor,
  given: string,
  kind?: LedgerResourceKind,
): Promise<MirrorRecord | undefined> {
  const prefixed = /^(refund|payment_refund):(.+)$/.exec(given);
  const id = prefixed?.[2] ?? given;
  const wanted = (prefixed?.[1] as LedgerResourceKind | undefined) ?? kind ?? kindFromId(id);
  switch (wanted) {
    case 'payment_intent':
      return findPaymentIntent(db, id);
    case 'transfer':
      return findTransfer(db, id);
    case 'refund':
    case 'payment_refund':
      return findRefund(db, wanted, id);
    case undefined:
      return (await findRefund(db, 'refund', id)) ?? (await findRefund(db, 'payment_refund', id));
  }
}

function kindFromId(id: string): LedgerResourceKind | undefined {
  const kind = kindOfId(id);
  return kind === 'payment_link' ? undefined : kind;
}
