import { ExpectationError, type ExpectationRefusal } from '../expectations/index.ts';
import { EndpointError, type EndpointRefusal } from '../relay/index.ts';
import { BadParameterError } from './ops-errors.ts';

// The domain's refusals in the API's words: the status, the error's kind (its `code` in the
// body, docs/ops.md "Errors") and a message that names the request's fields, never a CLI flag.

/** What the API answers a refusal with: `{ error: { code: kind, message } }` and a status. */
export interface OpsErrorAnswer {
  readonly status: 400 | 404 | 409;
  readonly kind: 'bad_parameter' | 'not_found' | 'conflict';
  readonly message: string;
}

const badParameter = (message: string): OpsErrorAnswer => ({
  status: 400,
  kind: 'bad_parameter',
  message,
});
const notFound = (message: string): OpsErrorAnswer => ({ status: 404, kind: 'not_found', message });
const conflict = (message: string): OpsErrorAnswer => ({ status: 409, kind: 'conflict', message });

export function endpointRefusalAnswer(refusal: EndpointRefusal): OpsErrorAnswer {
  switch (refusal.code) {
    case 'endpoint_url_invalid':
      return badParameter(
        `url "${refusal.url}" is not a URL; give an address such as https://shop.example.com/paysync`,
      );
    case 'endpoint_url_scheme':
      return badParameter(`url must be an https:// address (got ${refusal.protocol})`);
    case 'endpoint_url_credentials':
      return badParameter(
        'url must not carry a user name or password; the signature authenticates paysync',
      );
    case 'endpoint_url_fragment':
      return badParameter('url must not have a #fragment');
    case 'endpoint_url_not_https':
      return badParameter(
        'url must be https:// in live (set PAYSYNC_RELAY_ALLOW_HTTP=true to allow http://)',
      );
    case 'endpoint_url_internal':
      return badParameter(
        `url points at an internal address (${refusal.address}); paysync does not deliver inside the network in live unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it`,
      );
    case 'event_pattern_unknown':
      return badParameter(
        `${refusal.input}: "${refusal.pattern}" is not an event type or a pattern such as transfer.* (the types: ${refusal.known.join(', ')})`,
      );
    case 'description_too_long':
      return badParameter(`description is ${refusal.length} characters; keep it to ${refusal.max}`);
    case 'endpoint_id_invalid':
      return notFound(
        `"${refusal.endpointId}" is not an endpoint id: they look like ep_ and 20 hex digits`,
      );
    case 'endpoint_not_found':
      return notFound(`no endpoint ${refusal.endpointId}; GET /api/v1/endpoints lists them`);
    case 'event_id_invalid':
      return badParameter(`event "${refusal.eventId}" is not an event id: they look like evt_…`);
    case 'event_not_found':
      return notFound(`event: no event ${refusal.eventId} in the relay`);
    case 'event_not_subscribed':
      return badParameter(
        `event: ${refusal.eventId} is a ${refusal.eventType} event, and ${refusal.endpointId} is not subscribed to it (its events: ${refusal.subscribed.join(',')})`,
      );
    case 'secrets_key_missing':
      return badParameter(
        refusal.purpose === 'store'
          ? 'PAYSYNC_SECRETS_KEY is not set: in live, endpoint secrets are stored only encrypted; set it to id:key (docs/relay.md, "Secrets at rest")'
          : 'PAYSYNC_SECRETS_KEY is not set: there is no key to seal the endpoint secrets with',
      );
  }
}

export function expectationRefusalAnswer(refusal: ExpectationRefusal): OpsErrorAnswer {
  switch (refusal.code) {
    case 'reason_required':
      return badParameter('reason: a reason is required: say why, it is kept with who and when');
    case 'reason_too_long':
      return badParameter(`reason: the reason must be at most ${refusal.max} characters`);
    case 'resolver_required':
      return badParameter('by: say who resolves it');
    case 'expectation_not_found':
      return notFound(
        `no expectation "${refusal.expectationId}" in the ${refusal.environment} books (GET /api/v1/expectations lists them)`,
      );
    case 'break_not_found':
      return notFound(
        `no break ${refusal.breakId} in the ${refusal.environment} books (GET /api/v1/expectation-breaks lists them)`,
      );
    case 'break_kind_unknown':
      return badParameter(
        `"${refusal.kind}" is not a break kind: one of ${refusal.kinds.join(', ')}`,
      );
    case 'expectation_cancelled':
      return conflict(
        `expectation "${refusal.expectationId}" is cancelled: nothing is expected, so there is nothing to resolve`,
      );
  }
}

/**
 * The API's answer to an error a handler threw, or undefined when it is not a refusal (the
 * router logs it and answers 500): the one place the API words the domain's errors.
 */
export function opsErrorAnswer(error: unknown): OpsErrorAnswer | undefined {
  if (error instanceof BadParameterError) return badParameter(error.message);
  if (error instanceof EndpointError) return endpointRefusalAnswer(error.refusal);
  if (error instanceof ExpectationError) {
    if (error.refusal) return expectationRefusalAnswer(error.refusal);
    if (error.code === 'not_found') return notFound(error.message);
    return error.code === 'not_resolvable' ? conflict(error.message) : badParameter(error.message);
  }
  return undefined;
}
