import type { ApplyOutcome, MirrorRecord } from '../ledger/index.ts';
import type {
  CatalogEventType,
  AlertRaisedData,
  DayVerdictData,
  DriftDetectedData,
  DriftResolvedData,
  ItemEventData,
} from './event-schemas.ts';

/**
 * Events as the code that makes a change builds them (docs/relay.md, "Events"), before
 * {@link emitRelayEvents} stores them in the change's transaction. Pure: no clock, no database.
 */
export interface RelayEventDraft {
  readonly type: Exclude<CatalogEventType, 'ping'>;
  /** The item the event is about, the unit of order (`transfer:tr_…`); null: none. */
  readonly subject: string | null;
  /** One event per key, ever: a replayed change, a retried job or a second worker emit nothing new. */
  readonly dedupeKey: string;
  /** `live` or `sandbox` (`PAYSYNC_ENVIRONMENT`). */
  readonly environment: string;
  /** When the change happened. @defaultValue the `at` given to `emitRelayEvents` */
  readonly occurredAt?: string;
  readonly data:
    ItemEventData | DriftDetectedData | DriftResolvedData | DayVerdictData | AlertRaisedData;
}

/**
 * The events of what a batch of applies changed, in the order of the outcomes: one per status
 * an item reached (`successful` → `<kind>.succeeded`, `failed` → `<kind>.failed`, any other →
 * `<kind>.status_changed`, the first sighting included). A newer state with the same status,
 * a stale or repeated one, or a regression held back emits nothing.
 */
export function itemEventsOf(
  outcomes: readonly ApplyOutcome[],
  environment: string,
): RelayEventDraft[] {
  const events: RelayEventDraft[] = [];
  for (const outcome of outcomes) {
    const record = outcome.record;
    if (!outcome.changed || !record || outcome.previousStatus === outcome.status) continue;
    const what =
      outcome.status === 'successful'
        ? 'succeeded'
        : outcome.status === 'failed'
          ? 'failed'
          : 'status_changed';
    events.push({
      type: `${outcome.kind}.${what}`,
      subject: `${outcome.kind}:${outcome.id}`,
      dedupeKey: `${outcome.kind}:${outcome.id}:${outcome.status}`,
      environment,
      data: itemData(
        record,
        outcome.previousStatus ?? null,
        outcome.journalsPosted.map((journal) => journal.id),
      ),
    });
  }
  return events;
}

/** An item's `data`: the mirror's record after the change, as docs/relay.md shows it. */
export function itemData(
  record: MirrorRecord,
  previousStatus: string | null,
  journalIds: readonly number[],
): ItemEventData {
  const base = {
    id: record.id,
    status: record.status,
    previousStatus,
    amount: record.amount,
    currency: record.currency,
    failure:
      record.failureCode === null && record.failureMessage === null
        ? null
        : { code: record.failureCode, message: record.failureMessage },
    journalIds: [...journalIds],
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
  switch (record.kind) {
    case 'payment_intent':
      return {
        object: 'payment_intent',
        ...base,
        mode: record.mode,
        merchantId: record.merchantId,
        purchaseReference: record.purchaseReference,
        customerReference: record.customerReference,
        subMerchantId: record.subMerchantId,
      };
    case 'transfer':
      return {
        object: 'transfer',
        ...base,
        mode: record.mode,
        merchantId: record.merchantId,
        reference: record.reference,
        providerReference: record.providerReference,
        isIrt: record.isIrt,
        fees: record.fees.map((fee) => ({ ...fee })),
      };
    case 'refund':
      return {
        object: 'refund',
        ...base,
        transferId: record.originalId,
        reason: record.reason,
        paymentMethod: record.paymentMethod,
      };
    case 'payment_refund':
      return {
        object: 'payment_refund',
        ...base,
        paymentIntentId: record.originalId,
        mode: record.mode,
        reason: record.reason,
      };
  }
}

/** The subject of one service account's drift events: detected and resolved go out in order. */
function driftSubject(data: { accountType: string; currency: string }): string {
  return `balance:${data.accountType}:${data.currency}`;
}

/** `balance.drift_detected`: a snapshot recorded a new `balance_drift` discrepancy. */
export function driftDetectedEvent(environment: string, data: DriftDetectedData): RelayEventDraft {
  return {
    type: 'balance.drift_detected',
    subject: driftSubject(data),
    dedupeKey: `balance.drift_detected:${data.discrepancyId}`,
    environment,
    data,
  };
}

/** `balance.drift_resolved`: a later snapshot resolved that discrepancy. */
export function driftResolvedEvent(environment: string, data: DriftResolvedData): RelayEventDraft {
  return {
    type: 'balance.drift_resolved',
    subject: driftSubject(data),
    dedupeKey: `balance.drift_resolved:${data.discrepancyId}`,
    environment,
    data,
  };
}

/** `day.verdict`: the first verdict stored for a closed books day (one per day). */
export function dayVerdictEvent(environment: string, data: DayVerdictData): RelayEventDraft {
  return {
    type: 'day.verdict',
    subject: `day:${data.day}`,
    dedupeKey: `day.verdict:${data.day}`,
    environment,
    data,
  };
}

/** `alert.raised`: a new alert (masked as the alert is); alerts are not ordered (no subject). */
export function alertRaisedEvent(environment: string, data: AlertRaisedData): RelayEventDraft {
  return {
    type: 'alert.raised',
    subject: null,
    dedupeKey: `alert.raised:${data.alertId}`,
    environment,
    occurredAt: data.raisedAt,
    data,
  };
}
