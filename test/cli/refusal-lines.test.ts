import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/errors.ts';
import {
  endpointRefusalLine,
  expectationRefusalLine,
  groundTruthRefusalLine,
  periodRefusalLine,
  tenantRefusalLine,
} from '../../src/cli/format/refusal-lines.ts';
import type { GroundTruthRefusal } from '../../src/audit/index.ts';
import type { ExpectationRefusal } from '../../src/expectations/index.ts';
import type { PeriodRefusal } from '../../src/exports/index.ts';
import type { EndpointRefusal } from '../../src/relay/index.ts';
import type { TenantChoiceRefusal } from '../../src/tenants/index.ts';

// The CLI words the domain's refusals with the lines it always printed: the flags live here.
const { usage, failure } = ExitCode;

describe("the CLI's words for the relay's refusals", () => {
  const cases: [EndpointRefusal, string, number][] = [
    [
      { code: 'endpoint_url_invalid', url: 'shop' },
      '--url "shop" is not a URL; give an address such as https://shop.example.com/paysync',
      usage,
    ],
    [
      { code: 'endpoint_url_scheme', protocol: 'ftp:' },
      '--url must be an https:// address (got ftp:)',
      usage,
    ],
    [
      { code: 'endpoint_url_credentials' },
      '--url must not carry a user name or password; the signature authenticates paysync',
      usage,
    ],
    [{ code: 'endpoint_url_fragment' }, '--url must not have a #fragment', usage],
    [
      { code: 'endpoint_url_not_https', host: 'shop.example.com' },
      '--url must be https:// in live (set PAYSYNC_RELAY_ALLOW_HTTP=true to allow http://)',
      usage,
    ],
    [
      { code: 'endpoint_url_internal', host: 'localhost', address: '127.0.0.1' },
      '--url points at an internal address (127.0.0.1); paysync does not deliver inside the network in live unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it',
      usage,
    ],
    [
      { code: 'event_pattern_unknown', input: 'events', pattern: 'x', known: ['a.b', 'c.d'] },
      '--events: "x" is not an event type or a pattern such as transfer.* (the types: a.b, c.d)',
      usage,
    ],
    [
      { code: 'event_pattern_unknown', input: 'types', pattern: 'x', known: ['a.b'] },
      '--type: "x" is not an event type or a pattern such as transfer.* (the types: a.b)',
      usage,
    ],
    [
      { code: 'description_too_long', length: 501, max: 500 },
      '--description is 501 characters; keep it to 500',
      usage,
    ],
    [
      { code: 'endpoint_id_invalid', endpointId: 'tr_1' },
      '"tr_1" is not an endpoint id: they look like ep_ and 20 hex digits (see `paysync endpoints list`)',
      failure,
    ],
    [
      { code: 'endpoint_not_found', endpointId: 'ep_0' },
      'no endpoint ep_0; `paysync endpoints list` shows the endpoints',
      failure,
    ],
    [
      { code: 'event_id_invalid', eventId: 'tr_1' },
      '--event "tr_1" is not an event id: they look like evt_…',
      usage,
    ],
    [
      { code: 'event_not_found', eventId: 'evt_1' },
      '--event: no event evt_1 in the relay',
      failure,
    ],
    [
      {
        code: 'event_not_subscribed',
        eventId: 'evt_1',
        eventType: 'day.verdict',
        endpointId: 'ep_0',
        subscribed: ['transfer.*', 'refund.*'],
      },
      '--event: evt_1 is a day.verdict event, and ep_0 is not subscribed to it (its events: transfer.*,refund.*)',
      usage,
    ],
    [
      { code: 'secrets_key_missing', purpose: 'store' },
      'PAYSYNC_SECRETS_KEY is not set: in live, endpoint secrets are stored only encrypted; set it to id:key (docs/relay.md, "Secrets at rest")',
      failure,
    ],
    [
      { code: 'secrets_key_missing', purpose: 'reseal' },
      'PAYSYNC_SECRETS_KEY is not set: there is no key to seal the endpoint secrets with',
      failure,
    ],
  ];
  it.each(cases)('%o', (refusal, line, exitCode) => {
    expect(endpointRefusalLine(refusal)).toEqual({ line, exitCode });
  });
});

describe("the CLI's words for the expectations' refusals", () => {
  const cases: [ExpectationRefusal, string, number][] = [
    [
      { code: 'reason_required' },
      'a reason is required: say why, it is kept with who and when',
      usage,
    ],
    [{ code: 'reason_too_long', max: 1000 }, 'the reason must be at most 1000 characters', usage],
    [{ code: 'resolver_required' }, 'say who resolves it (--by <name>)', usage],
    [
      { code: 'expectation_not_found', expectationId: 'x', environment: 'live' },
      'no expectation "x" in the live books (see `paysync expect list`)',
      failure,
    ],
    [
      { code: 'break_not_found', breakId: 7, environment: 'live' },
      'no break 7 in the live books (see `paysync expect show <id>`)',
      failure,
    ],
    [
      { code: 'break_kind_unknown', kind: 'x', kinds: ['missing', 'unexpected'] },
      '"x" is not a break kind: one of missing, unexpected',
      usage,
    ],
    [
      { code: 'expectation_cancelled', expectationId: 'x' },
      'expectation "x" is cancelled: nothing is expected, so there is nothing to resolve',
      usage,
    ],
  ];
  it.each(cases)('%o', (refusal, line, exitCode) => {
    expect(expectationRefusalLine(refusal)).toEqual({ line, exitCode });
  });
});

describe("the CLI's words for a refused close or reopen", () => {
  const days = ['01', '02', '03', '04', '05', '06', '07'].map((d) => ({
    day: `2026-11-${d}`,
    verdict: d === '02' ? null : 'BREAKS',
  }));
  const cases: [PeriodRefusal, string, number][] = [
    [
      { code: 'period_reason_required', action: 'close' },
      '--force needs --reason "…": say why the month closes with days not RECONCILED',
      usage,
    ],
    [
      { code: 'period_reason_required', action: 'reopen' },
      'reopen needs --reason "…": say why the closed month must change',
      usage,
    ],
    [
      {
        code: 'period_already_closed',
        period: '2026-11',
        environment: 'live',
        closedAt: '2026-12-01T00:00:00.000Z',
      },
      '2026-11 (live) is already closed since 2026-12-01T00:00:00.000Z; reopen it first to close it again',
      failure,
    ],
    [
      { code: 'period_not_reconciled', period: '2026-11', environment: 'live', unreconciled: days },
      '2026-11 cannot close: 2026-11-01 BREAKS, 2026-11-02 no verdict, 2026-11-03 BREAKS, 2026-11-04 BREAKS, 2026-11-05 BREAKS and 2 more not RECONCILED → fix the breaks (paysync report --date <day>), or pass --force --reason "…"',
      failure,
    ],
    [
      { code: 'period_not_closed', period: '2026-11', environment: 'live' },
      '2026-11 (live) is not closed: nothing to reopen',
      failure,
    ],
  ];
  it.each(cases)('%o', (refusal, line, exitCode) => {
    expect(periodRefusalLine(refusal)).toEqual({ line, exitCode });
  });
});

describe("the CLI's words for a ground truth `audit --truth` cannot use (all exit 2)", () => {
  const cases: [GroundTruthRefusal, string][] = [
    [
      { code: 'truth_unreachable', source: 'http://sim/t', reason: 'ECONNREFUSED' },
      '--truth http://sim/t: cannot reach it (ECONNREFUSED) → is the simulator running?',
    ],
    [
      { code: 'truth_http_status', source: 'http://sim/t', status: 404 },
      "--truth http://sim/t: answered HTTP 404 → use the simulator's /__sim/ground-truth URL",
    ],
    [
      { code: 'truth_unreadable', source: 't.json', reason: 'ENOENT' },
      '--truth t.json: cannot read the file (ENOENT) → give a JSON file saved from /__sim/ground-truth',
    ],
    [
      { code: 'truth_not_json', source: 't.json', reason: 'Unexpected token' },
      '--truth t.json: not JSON (Unexpected token)',
    ],
    [
      { code: 'truth_invalid', source: 't.json', path: 'movements', problem: 'Required' },
      '--truth t.json is not a simulator ground truth: movements Required → give the JSON of GET /__sim/ground-truth',
    ],
  ];
  it.each(cases)('%o', (refusal, line) => {
    expect(groundTruthRefusalLine(refusal)).toEqual({ line, exitCode: usage });
  });
});

describe("the CLI's words for a tenant that cannot be chosen (all exit 2)", () => {
  const cases: [TenantChoiceRefusal, string][] = [
    [
      { code: 'tenant_not_found', tenant: 'acme', file: '/srv/t.yaml', tenants: ['a', 'b'] },
      '--tenant acme: no such tenant in /srv/t.yaml → one of a, b',
    ],
    [
      { code: 'tenant_not_named', file: '/srv/t.yaml', tenants: ['a', 'b'] },
      '/srv/t.yaml lists 2 tenants (a, b) → name one with --tenant <name> (or PAYSYNC_TENANT)',
    ],
    [
      { code: 'no_tenants_file', tenant: 'shop-live' },
      '--tenant shop-live: there is no tenants file, so there is one set of books (from the PAYSYNC_* variables) → set PAYSYNC_TENANTS_FILE, or leave --tenant out',
    ],
  ];
  it.each(cases)('%o', (refusal, line) => {
    expect(tenantRefusalLine(refusal)).toEqual({ line, exitCode: usage });
  });
});
