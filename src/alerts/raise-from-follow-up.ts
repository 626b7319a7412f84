import {
  LEDGER_RESOURCE_KINDS,
  openDiscrepancies,
  type LedgerResourceKind,
  type TransferRecord,
} from '../ledger/index.ts';
import { formatAmount } from '../money/index.ts';
import { findResource } from '../resource-view/index.ts';
import type { FollowUpJobData } from '../queues/index.ts';
import { isAlertKind, type AlertKind } from './alert-kind.ts';
import { maskNumber } from './mask-number.ts';
import {
  raiseAlert,
  type AlertDependencies,
  type RaiseAlertInput,
  type RaisedAlert,
} from './raise-alert.ts';
import { balanceDriftAlert, dayNotReconciledAlert, lowBalanceAlert } from './state-alerts.ts';

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

/**
 * The flat form, as an outbox payload: `{ reason: 'low_balance', subject, title, body, detail }`
 * (the kind is the reason; everything else as in {@link RaiseAlertInput}).
 */
export type FlatAlertFollowUp = { readonly type: 'alert'; readonly reason: string } & Partial<
  Omit<RaiseAlertInput, 'kind'>
>;

export type AlertFollowUp = LedgerAlertFollowUp | GenericAlertFollowUp | FlatAlertFollowUp;

function isLedgerFollowUp(payload: AlertFollowUp): payload is LedgerAlertFollowUp {
  return (
    (payload.reason === 'transfer_failed' || payload.reason === 'discrepancy') &&
    typeof (payload as { id?: unknown }).id === 'string'
  );
}

/** The alert of a failed transfer, from the ledger's mirror row. */
export function transferFailedAlert(transfer: TransferRecord): RaiseAlertInput {
  const recipient = recipientOf(transfer);
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
 * Raises the alert of an `alert` follow-up (see {@link alertOfFollowUp}). Idempotent: the same
 * follow-up twice finds its alert live. The follow-up job consumes its outbox row with
 * `consumeAlertFollowUp` instead, which stamps the row in the alert's transaction.
 */
export async function raiseAlertFromFollowUp(
  deps: AlertDependencies,
  payload: AlertFollowUp,
): Promise<RaisedAlert> {
  return raiseAlert(deps, await alertOfFollowUp(deps, payload));
}

/**
 * The alert an `alert` follow-up stands for. A failed transfer is looked up in the mirror (the
 * follow-up names it only), so the alert carries the amount, the code and the masked recipient.
 */
export async function alertOfFollowUp(
  deps: Pick<AlertDependencies, 'db'>,
  payload: AlertFollowUp,
): Promise<RaiseAlertInput> {
  if (payload.reason === 'raise' && 'alert' in payload && payload.alert) {
    if (!isAlertKind(payload.alert.kind)) {
      throw new Error(`alert follow-up with unknown kind "${String(payload.alert.kind)}"`);
    }
    return payload.alert;
  }
  if (!isLedgerFollowUp(payload)) {
    const {
      type: _type,
      reason: kind,
      title,
      outboxId: _outboxId,
      ...rest
    } = payload as FlatAlertFollowUp & { outboxId?: number };
    if (!isAlertKind(kind)) {
      throw new Error(
        `alert follow-up with unknown kind "${kind}": use one of the alert kinds (docs/alerts.md)`,
      );
    }
    const rendered = title === undefined ? stateAlertOf(kind, rest) : undefined;
    if (rendered) return rendered;
    return {
      ...rest,
      kind,
      title: title ?? `${kind.replaceAll('_', ' ')}${rest.subject ? ` on ${rest.subject}` : ''}`,
    };
  }
  if (payload.reason === 'transfer_failed') {
    const view = await findResource(deps.db, payload.id, { kind: 'transfer' });
    if (view && view.record.kind === 'transfer') return transferFailedAlert(view.record);
    return {
      kind: 'transfer_failed',
      subject: payload.id,
      title: `Transfer ${payload.id} failed`,
      body: `Transfer ${payload.id} failed; it is not in the mirror yet, so its amount and recipient are unknown here.`,
      detail: { transferId: payload.id, group: 'unknown_failure' },
    };
  }
  return discrepancyAlert(deps, payload);
}

/** Discrepancy kinds that are alert kinds of their own; the rest are `discrepancy`. */
const DISCREPANCY_ALERT_KINDS: Readonly<Record<string, AlertKind>> = {
  balance_drift: 'balance_drift',
  low_balance: 'low_balance',
  day_not_reconciled: 'day_not_reconciled',
};

const LEDGER_KINDS: readonly string[] = LEDGER_RESOURCE_KINDS;

/**
 * The alert of a discrepancy follow-up. The discrepancy's own detail (a stuck item's age, a
 * drift's amounts) and the mirror row (amount, recipient) make the message; its id goes in the
 * detail so the alert resolves when the ledger resolves the discrepancy.
 */
async function discrepancyAlert(
  deps: Pick<AlertDependencies, 'db'>,
  payload: LedgerAlertFollowUp,
): Promise<RaiseAlertInput> {
  const what = payload.discrepancyKind ?? 'discrepancy';
  const view = LEDGER_KINDS.includes(payload.kind)
    ? await findResource(deps.db, payload.id, { kind: payload.kind as LedgerResourceKind })
    : undefined;
  const discrepancy =
    view?.discrepancies.find((d) => d.id === payload.discrepancyId) ??
    (payload.discrepancyId !== undefined
      ? (await openDiscrepancies(deps.db, { limit: 1000 })).find(
          (d) => d.id === payload.discrepancyId,
        )
      : undefined);
  const facts = discrepancy?.detail ?? {};
  const common = {
    discrepancyId: payload.discrepancyId ?? null,
    discrepancyKind: what,
    ...facts,
  };
  const record = view?.record;
  if (what === 'stuck' && payload.kind === 'transfer') {
    const age = typeof facts.age === 'string' ? ` for ${facts.age}` : '';
    const status = payload.status ?? (typeof facts.status === 'string' ? facts.status : 'pending');
    const about =
      record && record.kind === 'transfer'
        ? ` of ${formatAmount(record.amount, record.currency)} to ${recipientOf(record)}`
        : '';
    return {
      kind: 'transfer_stuck',
      subject: payload.id,
      dedupeKey: `transfer_stuck:${payload.id}`,
      title: `Transfer ${payload.id}${about} stuck in ${status}${age}`,
      body: [
        `Transfer ${payload.id}${about} has been ${status}${age}, past its expected settlement time.`,
        typeof facts.since === 'string' ? `In ${status} since ${facts.since}.` : undefined,
        'paysync keeps polling it.',
      ]
        .filter(Boolean)
        .join('\n'),
      detail: { ...common, transferId: payload.id, group: status },
      resolvesWhen: 'when the transfer settles',
    };
  }
  if (what === 'balance_drift' && payload.discrepancyId !== undefined) {
    return balanceDriftAlert(
      payload.discrepancyId,
      { ...((payload as { detail?: Record<string, unknown> }).detail ?? {}), ...facts },
      payload.id,
    );
  }
  const kind = DISCREPANCY_ALERT_KINDS[what] ?? 'discrepancy';
  const resource = discrepancy?.resourceId
    ? ` on ${payload.kind.replace('_', ' ')} ${payload.id}`
    : payload.discrepancyId !== undefined
      ? ` (discrepancy ${payload.discrepancyId})`
      : '';
  const subject = discrepancy?.resourceId ?? (record ? payload.id : undefined);
  return {
    kind,
    ...(subject ? { subject } : {}),
    dedupeKey: `${kind}:${payload.discrepancyId ?? `${payload.kind}:${payload.id}`}`,
    title: `${what.replaceAll('_', ' ')}${resource}`,
    body: [
      `paysync could not reconcile${resource}: ${what}.`,
      Object.keys(facts).length > 0 ? `Details: ${JSON.stringify(facts)}` : undefined,
    ]
      .filter(Boolean)
      .join('\n'),
    detail: { ...common, resourceKind: payload.kind, resourceId: payload.id, group: what },
    resolvesWhen: 'when the discrepancy is resolved',
  };
}

/**
 * Balances and reports put `{ reason, kind, id, detail }` in the outbox for the conditions
 * they record; these are written as the deliverer writes them from state.
 */
function stateAlertOf(
  kind: AlertKind,
  fields: Readonly<Record<string, unknown>>,
): RaiseAlertInput | undefined {
  const detail = (fields.detail ?? {}) as Readonly<Record<string, unknown>>;
  if (kind === 'low_balance' && typeof detail.accountType === 'string') {
    return lowBalanceAlert(detail);
  }
  if (kind === 'day_not_reconciled' && typeof fields.id === 'string') {
    const at = fields.id.lastIndexOf(':');
    const environment = fields.id.slice(0, at);
    const day = fields.id.slice(at + 1);
    const list = (value: unknown) =>
      Array.isArray(value) ? value.map((item) => String(item)) : [];
    return dayNotReconciledAlert(
      environment,
      day,
      String(detail.verdict ?? 'INCOMPLETE'),
      list(detail.breaks),
      list(detail.incomplete),
    );
  }
  return undefined;
}

function recipientOf(transfer: TransferRecord): string {
  const number = typeof transfer.destination.number === 'string' ? transfer.destination.number : '';
  return number === '' ? 'an unknown recipient' : maskNumber(number);
}
