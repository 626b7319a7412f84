import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lifecycle/index.ts';
import type { Database } from '../db/index.ts';
import {
  findInboxEvent,
  markInboxStatus,
  recordInboxResource,
  type InboxEvent,
} from '../inbox/index.ts';
import { enqueueSync, type Queues } from '../queues/index.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { RESOURCE_KINDS, type ObservedVia } from '../resources/index.ts';
import { traceparentOf, type TraceContext } from '../tracing/index.ts';
import { classifyEvent, type EventClassification } from './classify-event.ts';
import { classifiedEventsTotal, unclassifiedEventsTotal } from './ingest-metrics.ts';

export interface IngestDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** The clock, resolved where the process is assembled: stamps `processed_at`. */
  readonly now: Clock;
  /** The ingest job's span: the sync it enqueues continues that trace (docs/observability.md). */
  readonly trace?: TraceContext | undefined;
  /**
   * The metrics handle of the tenant whose inbox this is: in a process serving several, the
   * counts carry the tenant's label. @defaultValue the handle of a process of one tenant
   */
  readonly metrics?: TenantMetrics;
}

export type IngestResult =
  | { readonly outcome: 'missing' | 'already_done' }
  | { readonly outcome: 'unclassified'; readonly reason: string }
  | { readonly outcome: 'ignored'; readonly subject: string }
  | { readonly outcome: 'sync_enqueued'; readonly classification: EventClassification };

/**
 * A row whose body retention pruned (a replay reopened it) is read by the resource it named
 * when it was first classified, which the row keeps. Only processed rows lose their body, so a
 * pruned row naming no resource was an event about nothing in the books: ignored again.
 */
function classifyPrunedEvent(event: InboxEvent): EventClassification {
  const kind = RESOURCE_KINDS.find((k) => k === event.resourceKind);
  if (kind !== undefined && (event.resourceId !== null || event.resourceReference !== null)) {
    return {
      outcome: 'resource',
      kind,
      ...(event.resourceId !== null ? { id: event.resourceId } : {}),
      ...(event.resourceReference !== null ? { reference: event.resourceReference } : {}),
    };
  }
  return {
    outcome: 'ignored',
    subject: `an event whose body retention pruned at ${event.bodyPrunedAt} (docs/retention.md)`,
  };
}

/**
 * Turns one inbox row into one deduplicated sync of the resource it names. The webhook body
 * is only read for the resource's identity, never for money (it is a hint).
 *
 * An event nobody can read is marked `unclassified` and logged here, once: the row leaves the
 * open statuses, so neither BullMQ nor the recovery sweep runs it again.
 */
export async function ingestEvent(
  deps: IngestDependencies,
  inboxId: number,
  via: ObservedVia = 'webhook',
): Promise<IngestResult> {
  const { db, queues, logger } = deps;
  const metrics = deps.metrics ?? soleTenantMetrics;
  const event = await findInboxEvent(db, inboxId);
  if (!event) {
    logger.warn({ inboxId }, 'ingest: no inbox row with this id; nothing to do');
    return { outcome: 'missing' };
  }
  if (event.status !== 'received' && event.status !== 'processing') {
    return { outcome: 'already_done' };
  }
  const classification = event.bodyPrunedAt
    ? classifyPrunedEvent(event)
    : classifyEvent(event.rawBody);
  if (classification.outcome === 'unclassified') {
    await markInboxStatus(db, inboxId, 'unclassified', {
      lastError: classification.reason,
      countAttempt: true,
      at: deps.now(),
    });
    metrics.inc(unclassifiedEventsTotal);
    logger.warn(
      {
        inboxId,
        eventId: event.eventId,
        eventType: event.eventType,
        reason: classification.reason,
      },
      'webhook event not understood: marked unclassified (the raw body is kept in the inbox)',
    );
    return { outcome: 'unclassified', reason: classification.reason };
  }
  if (classification.outcome === 'ignored') {
    await markInboxStatus(db, inboxId, 'processed', { countAttempt: true, at: deps.now() });
    metrics.inc(classifiedEventsTotal, { kind: 'ignored' });
    logger.debug({ inboxId, subject: classification.subject }, 'event about no ledger resource');
    return { outcome: 'ignored', subject: classification.subject };
  }
  const { kind, id, reference } = classification;
  const open = await recordInboxResource(db, inboxId, { kind, id, reference });
  if (!open) return { outcome: 'already_done' };
  await enqueueSync(queues, {
    kind,
    ...(id !== undefined ? { id } : {}),
    ...(reference !== undefined ? { reference } : {}),
    inboxId,
    via,
    traceparent: traceparentOf(deps.trace),
  });
  metrics.inc(classifiedEventsTotal, { kind });
  return { outcome: 'sync_enqueued', classification };
}
