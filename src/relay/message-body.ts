/**
 * The body of one relayed event, as the merchant's endpoint receives it (docs/relay.md):
 * `{"id","type","timestamp","environment","data"}`. `id` is also the `webhook-id` header,
 * the key a consumer deduplicates by; `timestamp` is when the change happened (UTC ISO 8601
 * with milliseconds), not when this attempt was made.
 */
export interface RelayMessageSource {
  /** The public id (`evt_…`). */
  readonly event_id: string;
  readonly type: string;
  readonly occurred_at: string;
  readonly environment: string;
  /** The event's `data` as stored: a JSON object's text. */
  readonly data: string;
}

export function relayMessageBody(event: RelayMessageSource): string {
  return `{"id":${JSON.stringify(event.event_id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.occurred_at)},"environment":${JSON.stringify(event.environment)},"data":${event.data}}`;
}
