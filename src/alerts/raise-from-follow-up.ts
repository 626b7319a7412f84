import { findResource, type TransferRecord } from '../ledger/index.ts';
import { formatAmount } from '../money/index.ts';
import type { FollowUpJobData } from '../queues/index.ts';
import { isAlertKind } from './alert-kind.ts';
import { maskNumber } from './mask-number.ts';
import {
  raiseAlert,
  type AlertDependencies,
  type RaiseAlertInput,
  type RaisedAlert,
} from './raise-alert.ts';

/** The alert follow-ups the sync path writes today (`transfer_failed`, `discrepancy`). */
export type LedgerAlertFollowUp = Extract<FollowUpJobData, { type: 'alert' }>;

/**
 * The generic form any component can put in a follow-up: the kind, the subject and the
 * facts; `raiseAlert` does the rest. `{ type: 'alert', reason: 'raise', alert: {…} }`.
 */
export interface GenericAlertFollowUp {
  readonly type: 'alert';
  readonly reason: 'raise';
  readonly alert: RaiseAlertInput;
}

export type AlertFollowUp = LedgerAlertFollowUp | GenericAlertFollowUp;

/** The alert of a failed transfer, from the ledger's mirror row. */
export function transferFailedAlert(transfer: TransferRecord): RaiseAlertInput {
  const number = typeof transfer.destination.number === 'string' ? transfer.destination.number : '';
  const recipient = number === '' ? 'an unknown recipient' : maskNumber(number);
  const provider = [transfer.destination.provider, transfer.destination.country]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(', ');
  const amount = formatAmount(transfer.amount, transfer.currency);
  const code = transfer.failureCode ?? 'unknown_failure';
  const reason = transfer.failureMessage ? `${code}: ${transfer.failureMessage}` : code;
  return {
    kind: 'transfer_failed',
    subject: transfer.id,
    title: `Transfer ${transfer.id} of ${amount} to ${recipient} failed: ${code}`,
    body: [
      `Transfer ${transfer.id} of ${amount} to ${recipient}${provider ? ` (${provider})` : ''} failed.`,
      `Failure: ${reason}.`,
      `Reference: ${transfer.reference}.`,
    ].join('\n'),
    detail: {
      transferId: transfer.id,
      reference: transfer.reference,
      amount: transfer.amount,
      currency: transfer.currency,
      amountText: amount,
      failureCode: code,
      failureMessage: transfer.failureMessage,
      recipient,
      group: code,
    },
  };
}

/**
 * What the follow-up job calls for an `alert` follow-up. A failed transfer is looked up in the
 * mirror (the follow-up names it only), so the alert carries the amount, the code and the
 * masked recipient. Idempotent: the same follow-up twice finds its alert live.
 */
export async function raiseAlertFromFollowUp(
  deps: AlertDependencies,
  payload: AlertFollowUp,
): Promise<RaisedAlert> {
  if (payload.reason === 'raise') {
    if (!isAlertKind(payload.alert.kind)) {
      throw new Error(`alert follow-up with unknown kind "${String(payload.alert.kind)}"`);
    }
    return raiseAlert(deps, payload.alert);
  }
  if (payload.reason === 'transfer_failed') {
    const view = await findResource(deps.db, payload.id, { kind: 'transfer' });
    if (view && view.record.kind === 'transfer')
      return raiseAlert(deps, transferFailedAlert(view.record));
    return raiseAlert(deps, {
      kind: 'transfer_failed',
      subject: payload.id,
      title: `Transfer ${payload.id} failed`,
      body: `Transfer ${payload.id} failed; it is not in the mirror yet, so its amount and recipient are unknown here.`,
      detail: { transferId: payload.id, group: 'unknown_failure' },
    });
  }
  const what = payload.discrepancyKind ?? 'discrepancy';
  return raiseAlert(deps, {
    kind: 'discrepancy',
    subject: payload.id,
    dedupeKey: `discrepancy:${payload.discrepancyId ?? `${payload.kind}:${payload.id}`}`,
    title: `${what} on ${payload.kind.replace('_', ' ')} ${payload.id}`,
    body: `paysync could not reconcile ${payload.kind.replace('_', ' ')} ${payload.id}: ${what}${payload.discrepancyId !== undefined ? ` (discrepancy ${payload.discrepancyId})` : ''}.`,
    detail: {
      resourceKind: payload.kind,
      resourceId: payload.id,
      discrepancyId: payload.discrepancyId ?? null,
      group: what,
    },
  });
}
