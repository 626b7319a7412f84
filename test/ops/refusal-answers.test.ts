import { describe, expect, it } from 'vitest';
import { ExpectationError, type ExpectationRefusal } from '../../src/expectations/index.ts';
import { BadParameterError } from '../../src/ops/ops-errors.ts';
import { opsErrorAnswer } from '../../src/ops/refusal-answers.ts';
import { EndpointError, type EndpointRefusal } from '../../src/relay/index.ts';

// The API words the domain's refusals in one place, naming its fields, never a CLI flag or command.
const endpointCases: [EndpointRefusal, number, string, string][] = [
  [
    { code: 'endpoint_url_invalid', url: 'shop' },
    400,
    'bad_parameter',
    'url "shop" is not a URL; give an address such as https://shop.example.com/paysync',
  ],
  [
    { code: 'endpoint_url_scheme', protocol: 'ftp:' },
    400,
    'bad_parameter',
    'url must be an https:// address (got ftp:)',
  ],
  [
    { code: 'endpoint_url_credentials' },
    400,
    'bad_parameter',
    'url must not carry a user name or password; the signature authenticates paysync',
  ],
  [{ code: 'endpoint_url_fragment' }, 400, 'bad_parameter', 'url must not have a #fragment'],
  [
    { code: 'endpoint_url_not_https', host: 'shop.example.com' },
    400,
    'bad_parameter',
    'url must be https:// in live (set PAYSYNC_RELAY_ALLOW_HTTP=true to allow http://)',
  ],
  [
    { code: 'endpoint_url_internal', host: 'localhost', address: '127.0.0.1' },
    400,
    'bad_parameter',
    'url points at an internal address (127.0.0.1); paysync does not deliver inside the network in live unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it',
  ],
  [
    { code: 'event_pattern_unknown', input: 'types', pattern: 'x', known: ['a.b'] },
    400,
    'bad_parameter',
    'types: "x" is not an event type or a pattern such as transfer.* (the types: a.b)',
  ],
  [
    { code: 'description_too_long', length: 501, max: 500 },
    400,
    'bad_parameter',
    'description is 501 characters; keep it to 500',
  ],
  [
    { code: 'endpoint_id_invalid', endpointId: 'tr_1' },
    404,
    'not_found',
    '"tr_1" is not an endpoint id: they look like ep_ and 20 hex digits',
  ],
  [
    { code: 'endpoint_not_found', endpointId: 'ep_0' },
    404,
    'not_found',
    'no endpoint ep_0; GET /api/v1/endpoints lists them',
  ],
  [
    { code: 'event_id_invalid', eventId: 'tr_1' },
    400,
    'bad_parameter',
    'event "tr_1" is not an event id: they look like evt_…',
  ],
  [
    { code: 'event_not_found', eventId: 'evt_1' },
    404,
    'not_found',
    'event: no event evt_1 in the relay',
  ],
  [
    {
      code: 'event_not_subscribed',
      eventId: 'evt_1',
      eventType: 'day.verdict',
      endpointId: 'ep_0',
      subscribed: ['transfer.*'],
    },
    400,
    'bad_parameter',
    'event: evt_1 is a day.verdict event, and ep_0 is not subscribed to it (its events: transfer.*)',
  ],
  [
    { code: 'secrets_key_missing', purpose: 'reseal' },
    400,
    'bad_parameter',
    'PAYSYNC_SECRETS_KEY is not set: there is no key to seal the endpoint secrets with',
  ],
];

const expectationCases: [ExpectationRefusal, number, string, string][] = [
  [
    { code: 'reason_required' },
    400,
    'bad_parameter',
    'reason: a reason is required: say why, it is kept with who and when',
  ],
  [
    { code: 'reason_too_long', max: 1000 },
    400,
    'bad_parameter',
    'reason: the reason must be at most 1000 characters',
  ],
  [{ code: 'resolver_required' }, 400, 'bad_parameter', 'by: say who resolves it'],
  [
    { code: 'expectation_not_found', expectationId: 'x', environment: 'live' },
    404,
    'not_found',
    'no expectation "x" in the live books (GET /api/v1/expectations lists them)',
  ],
  [
    { code: 'break_not_found', breakId: 7, environment: 'live' },
    404,
    'not_found',
    'no break 7 in the live books (GET /api/v1/expectation-breaks lists them)',
  ],
  [
    { code: 'break_kind_unknown', kind: 'x', kinds: ['missing'] },
    400,
    'bad_parameter',
    '"x" is not a break kind: one of missing',
  ],
  [
    { code: 'expectation_cancelled', expectationId: 'x' },
    409,
    'conflict',
    'expectation "x" is cancelled: nothing is expected, so there is nothing to resolve',
  ],
];

describe("the ops API's one wording of refusals", () => {
  it.each(endpointCases)('%o', (refusal, status, kind, message) => {
    expect(opsErrorAnswer(new EndpointError(refusal))).toEqual({ status, kind, message });
    expect(message).not.toMatch(/--|`paysync /);
  });

  it.each(expectationCases)('%o', (refusal, status, kind, message) => {
    expect(opsErrorAnswer(new ExpectationError(refusal))).toEqual({ status, kind, message });
    expect(message).not.toMatch(/--|`paysync /);
  });

  it('words a bad parameter, a door-worded expectation error, and leaves the rest to the 500', () => {
    expect(opsErrorAnswer(new BadParameterError('limit', 'must be at most 200'))).toEqual({
      status: 400,
      kind: 'bad_parameter',
      message: 'limit: must be at most 200',
    });
    expect(opsErrorAnswer(new ExpectationError('not_found', 'no break x'))).toEqual({
      status: 404,
      kind: 'not_found',
      message: 'no break x',
    });
    expect(opsErrorAnswer(new Error('boom'))).toBeUndefined();
  });
});
