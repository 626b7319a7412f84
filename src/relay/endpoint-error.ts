/**
 * Why an endpoint management call or a redelivery changed nothing, as data: a `code` and the
 * facts it needs. The doors word it for their audience (the CLI names its flags, the ops API
 * its fields); `message` is a plain line for logs and for a door that does not word it.
 */
export type EndpointRefusal =
  /** The endpoint URL does not parse. */
  | { readonly code: 'endpoint_url_invalid'; readonly url: string }
  /** Neither https: nor http:. */
  | { readonly code: 'endpoint_url_scheme'; readonly protocol: string }
  /** A user name or password in the URL: the signature authenticates paysync. */
  | { readonly code: 'endpoint_url_credentials' }
  | { readonly code: 'endpoint_url_fragment' }
  /** http:// in live without PAYSYNC_RELAY_ALLOW_HTTP. */
  | { readonly code: 'endpoint_url_not_https'; readonly host: string }
  /** In live, a host that is or resolves to an internal address not allowed. */
  | { readonly code: 'endpoint_url_internal'; readonly host: string; readonly address: string }
  /** A subscription pattern (`events`) or a redelivery's type filter (`types`) paysync cannot match. */
  | {
      readonly code: 'event_pattern_unknown';
      readonly input: 'events' | 'types';
      readonly pattern: string;
      /** The catalog's types, to name the choices. */
      readonly known: readonly string[];
    }
  | { readonly code: 'description_too_long'; readonly length: number; readonly max: number }
  /** Not of the form ep_ and 20 hex digits. */
  | { readonly code: 'endpoint_id_invalid'; readonly endpointId: string }
  | { readonly code: 'endpoint_not_found'; readonly endpointId: string }
  /** Not of the form evt_…. */
  | { readonly code: 'event_id_invalid'; readonly eventId: string }
  | { readonly code: 'event_not_found'; readonly eventId: string }
  | {
      readonly code: 'event_not_subscribed';
      readonly eventId: string;
      readonly eventType: string;
      readonly endpointId: string;
      readonly subscribed: readonly string[];
    }
  /** No PAYSYNC_SECRETS_KEY: a live secret cannot be `stored`, or there is nothing to `reseal` with. */
  | { readonly code: 'secrets_key_missing'; readonly purpose: 'store' | 'reseal' };

export type EndpointErrorCode = EndpointRefusal['code'];

function plainMessage(refusal: EndpointRefusal): string {
  switch (refusal.code) {
    case 'endpoint_url_invalid':
      return `the endpoint URL "${refusal.url}" is not a URL`;
    case 'endpoint_url_scheme':
      return `the endpoint URL must be https:// (got ${refusal.protocol})`;
    case 'endpoint_url_credentials':
      return 'the endpoint URL carries a user name or password';
    case 'endpoint_url_fragment':
      return 'the endpoint URL has a #fragment';
    case 'endpoint_url_not_https':
      return `the endpoint URL for ${refusal.host} must be https:// in live`;
    case 'endpoint_url_internal':
      return `the endpoint URL points at an internal address (${refusal.address})`;
    case 'event_pattern_unknown':
      return `"${refusal.pattern}" is not an event type or pattern`;
    case 'description_too_long':
      return `the description is ${refusal.length} characters, over ${refusal.max}`;
    case 'endpoint_id_invalid':
      return `"${refusal.endpointId}" is not an endpoint id`;
    case 'endpoint_not_found':
      return `no endpoint ${refusal.endpointId}`;
    case 'event_id_invalid':
      return `"${refusal.eventId}" is not an event id`;
    case 'event_not_found':
      return `no event ${refusal.eventId} in the relay`;
    case 'event_not_subscribed':
      return `${refusal.endpointId} is not subscribed to ${refusal.eventType} events`;
    case 'secrets_key_missing':
      return 'PAYSYNC_SECRETS_KEY is not set';
  }
}

export class EndpointError extends Error {
  override readonly name = 'EndpointError';
  readonly code: EndpointErrorCode;
  constructor(readonly refusal: EndpointRefusal) {
    super(plainMessage(refusal));
    this.code = refusal.code;
  }
}
