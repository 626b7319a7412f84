import type { Executor } from '../db/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { MirrorRecord } from './mirror-records.ts';
import { toPaymentIntentRecord } from './payment-intent.repository.ts';
import { toRefundRecord } from './refund.repository.ts';
import { toTransferRecord } from './transfer.repository.ts';
import { utcMillis } from './utc-millis.ts';

export interface ListResourcesOptions {
  /** Only these statuses (the mirror's monotonic status). */
  readonly status?: string | readonly string[];
  /** Only resources the service updated at or after this time (ISO 8601). */
  readonly since?: string;
  /** @defaultValue 50 */
  readonly limit?: number;
}

/** Mirrored resources of one kind, most recently updated by the service first. */
export async function listResources(
  db: Executor,
  kind: LedgerResourceKind,
  options: ListResourcesOptions = {},
): Promise<MirrorRecord[]> {
  const statuses = options.status === undefined ? undefined : [options.status].flat();
  const since = options.since === undefined ? undefined : utcMillis(options.since, 'since');
  const limit = options.limit ?? 50;
  if (kind === 'payment_intent') {
    let query = db.selectFrom('payment_intents').selectAll();
    if (statuses) query = query.where('status', 'in', statuses);
    if (since) query = query.where('updated_at', '>=', since);
    const rows = await query.orderBy('updated_at', 'desc').orderBy('id').limit(limit).execute();
    return rows.map(toPaymentIntentRecord);
  }
  if (kind === 'transfer') {
    let query = db.selectFrom('transfers').selectAll();
    if (statuses) query = query.where('status', 'in', statuses);
    if (since) query = query.where('updated_at', '>=', since);
    const rows = await query.orderBy('updated_at', 'desc').orderBy('id').limit(limit).execute();
    return rows.map(toTransferRecord);
  }
  let query = db.selectFrom('refunds').selectAll().where('kind', '=', kind);
  if (statuses) query = query.where('status', 'in', statuses);
  if (since) query = query.where('updated_at', '>=', since);
  const rows = await query.orderBy('updated_at', 'desc').orderBy('id').limit(limit).execute();
  return rows.map(toRefundRecord);
}
