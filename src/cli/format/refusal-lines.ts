import type { GroundTruthRefusal } from '../../audit/index.ts';
import type { ExpectationRefusal } from '../../expectations/index.ts';
import type { PeriodRefusal } from '../../exports/index.ts';
import type { EndpointRefusal } from '../../relay/index.ts';
import type { TenantChoiceRefusal } from '../../tenants/index.ts';
import { ExitCode, type ExitCodeValue } from '../errors.ts';

// The domain's refusals in the CLI's words: here the flags are named, and the exit code chosen
// (1: something is not there or not set up, 2: the command was given wrongly).

/** What a command prints after `<command>: ` and exits with. */
export interface RefusalLine {
  readonly line: string;
  readonly exitCode: ExitCodeValue;
}

const usage = (line: string): RefusalLine => ({ line, exitCode: ExitCode.usage });
const failure = (line: string): RefusalLine => ({ line, exitCode: ExitCode.failure });

/** The flag each of the domain's request fields is given by. */
const PATTERN_FLAG = { events: '--events', types: '--type' } as const;

export function endpointRefusalLine(refusal: EndpointRefusal): RefusalLine {
  switch (refusal.code) {
    case 'endpoint_url_invalid':
      return usage(
        `--url "${refusal.url}" is not a URL; give an address such as https://shop.example.com/paysync`,
      );
    case 'endpoint_url_scheme':
      return usage(`--url must be an https:// address (got ${refusal.protocol})`);
    case 'endpoint_url_credentials':
      return usage(
        '--url must not carry a user name or password; the signature authenticates paysync',
      );
    case 'endpoint_url_fragment':
      return usage('--url must not have a #fragment');
    case 'endpoint_url_not_https':
      return usage(
        '--url must be https:// in live (set PAYSYNC_RELAY_ALLOW_HTTP=true to allow http://)',
      );
    case 'endpoint_url_internal':
      return usage(
        `--url points at an internal address (${refusal.address}); paysync does not deliver inside the network in live unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it`,
      );
    case 'event_pattern_unknown':
      return usage(
        `${PATTERN_FLAG[refusal.input]}: "${refusal.pattern}" is not an event type or a pattern such as transfer.* (the types: ${refusal.known.join(', ')})`,
      );
    case 'description_too_long':
      return usage(`--description is ${refusal.length} characters; keep it to ${refusal.max}`);
    case 'endpoint_id_invalid':
      return failure(
        `"${refusal.endpointId}" is not an endpoint id: they look like ep_ and 20 hex digits (see \`paysync endpoints list\`)`,
      );
    case 'endpoint_not_found':
      return failure(
        `no endpoint ${refusal.endpointId}; \`paysync endpoints list\` shows the endpoints`,
      );
    case 'event_id_invalid':
      return usage(`--event "${refusal.eventId}" is not an event id: they look like evt_…`);
    case 'event_not_found':
      return failure(`--event: no event ${refusal.eventId} in the relay`);
    case 'event_not_subscribed':
      return usage(
        `--event: ${refusal.eventId} is a ${refusal.eventType} event, and ${refusal.endpointId} is not subscribed to it (its events: ${refusal.subscribed.join(',')})`,
      );
    case 'secrets_key_missing':
      return failure(
        refusal.purpose === 'store'
          ? 'PAYSYNC_SECRETS_KEY is not set: in live, endpoint secrets are stored only encrypted; set it to id:key (docs/relay.md, "Secrets at rest")'
          : 'PAYSYNC_SECRETS_KEY is not set: there is no key to seal the endpoint secrets with',
      );
  }
}

export function expectationRefusalLine(refusal: ExpectationRefusal): RefusalLine {
  switch (refusal.code) {
    case 'reason_required':
      return usage('a reason is required: say why, it is kept with who and when');
    case 'reason_too_long':
      return usage(`the reason must be at most ${refusal.max} characters`);
    case 'resolver_required':
      return usage('say who resolves it (--by <name>)');
    case 'expectation_not_found':
      return failure(
        `no expectation "${refusal.expectationId}" in the ${refusal.environment} books (see \`paysync expect list\`)`,
      );
    case 'break_not_found':
      return failure(
        `no break ${refusal.breakId} in the ${refusal.environment} books (see \`paysync expect show <id>\`)`,
      );
    case 'break_kind_unknown':
      return usage(`"${refusal.kind}" is not a break kind: one of ${refusal.kinds.join(', ')}`);
    case 'expectation_cancelled':
      return usage(
        `expectation "${refusal.expectationId}" is cancelled: nothing is expected, so there is nothing to resolve`,
      );
  }
}

/** Days not RECONCILED, five at most: `2026-11-18 BREAKS, 2026-11-19 no verdict and 3 more`. */
function unreconciledText(days: PeriodRefusal & { code: 'period_not_reconciled' }): string {
  const shown = days.unreconciled
    .slice(0, 5)
    .map(({ day, verdict }) => `${day} ${verdict ?? 'no verdict'}`)
    .join(', ');
  const count = days.unreconciled.length;
  return `${shown}${count > 5 ? ` and ${count - 5} more` : ''}`;
}

export function periodRefusalLine(refusal: PeriodRefusal): RefusalLine {
  switch (refusal.code) {
    case 'period_reason_required':
      return usage(
        refusal.action === 'close'
          ? '--force needs --reason "…": say why the month closes with days not RECONCILED'
          : 'reopen needs --reason "…": say why the closed month must change',
      );
    case 'period_already_closed':
      return failure(
        `${refusal.period} (${refusal.environment}) is already closed since ${refusal.closedAt}; reopen it first to close it again`,
      );
    case 'period_not_reconciled':
      return failure(
        `${refusal.period} cannot close: ${unreconciledText(refusal)} not RECONCILED → fix the breaks (paysync report --date <day>), or pass --force --reason "…"`,
      );
    case 'period_not_closed':
      return failure(`${refusal.period} (${refusal.environment}) is not closed: nothing to reopen`);
  }
}

/** `paysync audit --truth <source>`: every refusal is a bad `--truth` (exit 2). */
export function groundTruthRefusalLine(refusal: GroundTruthRefusal): RefusalLine {
  switch (refusal.code) {
    case 'truth_unreachable':
      return usage(
        `--truth ${refusal.source}: cannot reach it (${refusal.reason}) → is the simulator running?`,
      );
    case 'truth_http_status':
      return usage(
        `--truth ${refusal.source}: answered HTTP ${refusal.status} → use the simulator's /__sim/ground-truth URL`,
      );
    case 'truth_unreadable':
      return usage(
        `--truth ${refusal.source}: cannot read the file (${refusal.reason}) → give a JSON file saved from /__sim/ground-truth`,
      );
    case 'truth_not_json':
      return usage(`--truth ${refusal.source}: not JSON (${refusal.reason})`);
    case 'truth_invalid':
      return usage(
        `${refusal.source === undefined ? 'the ground truth' : `--truth ${refusal.source}`} is not a simulator ground truth: ${refusal.path} ${refusal.problem} → give the JSON of GET /__sim/ground-truth`,
      );
  }
}

/** Which tenant of the tenants file: `--tenant` (or `PAYSYNC_TENANT`) names it. */
export function tenantRefusalLine(refusal: TenantChoiceRefusal): RefusalLine {
  switch (refusal.code) {
    case 'tenant_not_found':
      return usage(
        `--tenant ${refusal.tenant}: no such tenant in ${refusal.file} → one of ${refusal.tenants.join(', ')}`,
      );
    case 'tenant_not_named':
      return usage(
        `${refusal.file} lists ${refusal.tenants.length} tenants (${refusal.tenants.join(', ')}) → name one with --tenant <name> (or PAYSYNC_TENANT)`,
      );
    case 'no_tenants_file':
      return usage(
        `--tenant ${refusal.tenant}: there is no tenants file, so there is one set of books (from the PAYSYNC_* variables) → set PAYSYNC_TENANTS_FILE, or leave --tenant out`,
      );
  }
}
