/**
 * The relay (issue 23, docs/relay.md): reconciled, signed events delivered to the merchant's
 * own systems. Events are written in the transaction of the change that causes them; each
 * enabled, subscribed endpoint gets a delivery row in that same transaction; a deliverer POSTs
 * them signed with Standard Webhooks, in order per subject, with retries.
 */
export type {
  RelayAttemptRow,
  RelayAttemptTable,
  RelayDeliveryRow,
  RelayDeliveryTable,
  RelayEndpointRow,
  RelayEndpointTable,
  RelayEventRow,
  RelayEventTable,
} from './relay.tables.ts';

// --- shared: the catalog's names, signing, one POST, which URLs may be delivered to ---
export {
  eventPatternProblem,
  isRelayEventType,
  matchesEventPatterns,
  RELAY_EVENT_TYPES,
  RELAYED_ITEM_KINDS,
  type RelayedItemKind,
  type RelayEventType,
} from './event-types.ts';
export { isEndpointSecret, newEndpointSecret, signedHeaders, type SignedHeaders } from './sign.ts';
export {
  postEvent,
  RESPONSE_EXCERPT_BYTES,
  type AttemptOutcome,
  type PostOptions,
  type PostResult,
} from './post-event.ts';
export {
  addressProblem,
  endpointUrlProblem,
  guardedLookup,
  hostProblem,
  type EndpointUrlRules,
} from './endpoint-url.ts';

export { relayMessageBody, type RelayMessageSource } from './message-body.ts';
export { notifyRelay, relaySignal } from './relay-signal.ts';

// --- events: catalog, building, emission (in the change's transaction) ---
export {
  RELAY_EVENT_DATA_SCHEMAS,
  relayEventsSchemaDocument,
  type AlertRaisedData,
  type CatalogEventType,
  type DayVerdictData,
  type DriftDetectedData,
  type DriftResolvedData,
  type ItemEventData,
  type ItemEventType,
  type PaymentIntentEventData,
  type PaymentRefundEventData,
  type RefundEventData,
  type TransferEventData,
} from './event-schemas.ts';
export {
  alertRaisedEvent,
  dayVerdictEvent,
  driftDetectedEvent,
  driftResolvedEvent,
  itemData,
  itemEventsOf,
  type RelayEventDraft,
} from './event-data.ts';
export { emitRelayEvents, newEventId, type EmittedEvents } from './emit-events.ts';

// --- endpoints: add, list, enable/disable, rotate, redeliver, pending ---
export { endpointView, type EndpointView } from './endpoint.repository.ts';
export {
  endpointHealth,
  recentAttempts,
  type AttemptView,
  type EndpointHealth,
} from './endpoint-health-view.ts';
export {
  addEndpoint,
  checkedPatterns,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  endpointAttempts,
  isEndpointId,
  listEndpoints,
  PREVIOUS_SECRET_VALID_MS,
  requireEndpoint,
  resealEndpointSecrets,
  secretsAtRest,
  type SecretsAtRest,
  rotateEndpointSecret,
  type ResealedSecrets,
  type SecretsKeys,
  showEndpoint,
  SHOWN_ATTEMPTS,
  type AddedEndpoint,
  type AddEndpointRequest,
  type EndpointContext,
  type EndpointDetail,
  type EndpointWithHealth,
} from './manage-endpoints.ts';
export { EndpointError, type EndpointErrorCode, type EndpointRefusal } from './endpoint-error.ts';
export { pingEndpoint, type PingResult } from './ping-endpoint.ts';
export { openSecret, SecretKeyError, sealSecret } from './secret-box.ts';
export {
  redeliverToEndpoint,
  type RedeliveryOptions,
  type RedeliveryResult,
  type RedeliverySelection,
} from './redeliver-events.ts';
export { undeliveredEvents, type UndeliveredView } from './pending-deliveries.ts';

// --- delivery: signing, retry schedule, the deliverer, metrics ---
export {
  createRelayDeliverer,
  deliveryGuard,
  signingSecrets,
  type RelayDeliverer,
  type RelayDelivererDeps,
} from './deliverer.ts';
export { claimDueDeliveries, type ClaimedDelivery, type ClaimOptions } from './claim-deliveries.ts';
export { recordAttempt, type RecordedAttempt } from './record-attempt.ts';
export { MAX_ATTEMPTS, nextAttemptAt, RETRY_JITTER } from './retry-schedule.ts';
export { RETRY_SCHEDULE_MS } from './retry-schedule.defaults.ts';
export {
  checkEndpointHealth,
  shownUrl,
  type EndpointHealthFacts,
  type EndpointHealthListener,
  type ToldHealth,
} from './endpoint-health.ts';
export {
  refreshOldestPending,
  relayAttemptSeconds,
  relayDeliveriesTotal,
  relayOldestPendingSeconds,
} from './relay-metrics.ts';
export {
  RELAY_ATTEMPTS_RETENTION,
  RELAY_DELIVERIES_RETENTION,
  RELAY_EVENTS_RETENTION,
} from './relay-retention.ts';
