/**
 * The attribute names paysync sets on its spans (docs/observability.md lists them). Values are
 * ids, kinds, statuses and counts: never a secret, a full account or phone number, or a body.
 */
export const TRACE_ATTRIBUTES = {
  itemKind: 'paysync.item.kind',
  itemId: 'paysync.item.id',
  /** Every item a span serves, when it serves several (the apply transaction). */
  itemIds: 'paysync.item.ids',
  tenant: 'paysync.tenant',
  signatureOutcome: 'paysync.webhook.signature',
  events: 'paysync.webhook.events',
  inboxIds: 'paysync.inbox.ids',
  batchItems: 'paysync.batch.items',
  operation: 'paysync.upstream.operation',
  rateLimited: 'paysync.upstream.rate_limited',
  attempt: 'paysync.upstream.attempt',
  booked: 'paysync.apply.items',
  followUp: 'paysync.follow_up.type',
  task: 'paysync.scheduled.task',
  slot: 'paysync.scheduled.slot',
  outcome: 'paysync.scheduled.outcome',
  windowStream: 'paysync.window.stream',
  windowItems: 'paysync.window.items',
  windowPosition: 'paysync.window.position',
} as const;

/** `paysync.item.kind`, `paysync.item.id` (when known) and the tenant (when there is one). */
export function itemAttributes(item: {
  readonly kind: string;
  readonly id?: string | undefined;
  readonly tenant?: string | undefined;
}): Record<string, string> {
  return {
    [TRACE_ATTRIBUTES.itemKind]: item.kind,
    ...(item.id !== undefined ? { [TRACE_ATTRIBUTES.itemId]: item.id } : {}),
    ...(item.tenant !== undefined ? { [TRACE_ATTRIBUTES.tenant]: item.tenant } : {}),
  };
}
