import { Command, InvalidArgumentError, Option } from 'commander';
import type { Kysely } from 'kysely';
import type { Config } from '../../config/index.ts';
import type { Database } from '../../db/index.ts';
import type {
  AttemptView,
  EndpointHealth,
  EndpointView,
  EndpointWithHealth,
  UndeliveredView,
} from '../../relay/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { formatTime } from '../format/format-time.ts';
import { endpointRefusalLine } from '../format/refusal-lines.ts';
import { renderFields } from '../format/render-fields.ts';
import { renderTable } from '../format/render-table.ts';
import { integerOption } from '../input/parse-integer.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { printJson, progressLine, say } from '../output.ts';

const ENDPOINT_ID = /^ep_[0-9a-f]{20}$/;

function endpointIdArgument(value: string): string {
  if (!ENDPOINT_ID.test(value)) {
    throw new InvalidArgumentError(
      `"${value}" is not an endpoint id: they look like ep_ and 20 hex digits (see \`paysync endpoints list\`)`,
    );
  }
  return value;
}

/** `--events transfer.*,day.verdict` and `--events transfer.* --events day.verdict` alike. */
function patternList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

/** Opens the database, runs one management call, and turns its refusal into one CLI line. */
async function withEndpoints<T>(
  invoked: Command,
  what: string,
  run: (db: Kysely<Database>, config: Config) => Promise<T>,
): Promise<T> {
  const config = await cliConfig(invoked);
  const { openLedgerDatabase } = await import('../open-ledger-database.ts');
  const { EndpointError } = await import('../../relay/index.ts');
  const handle = await openLedgerDatabase(config, what);
  try {
    return await run(handle.db, config);
  } catch (error) {
    if (error instanceof EndpointError) {
      const { line, exitCode } = endpointRefusalLine(error.refusal);
      throw new CliError(`${what}: ${line}`, exitCode);
    }
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `3h 12m`, `45s`, `2d 4h`. */
function age(ms: number | null): string {
  if (ms === null) return '-';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

function eventsText(events: readonly string[] | null): string {
  return events === null ? 'all types' : events.join(',');
}

function stateText(endpoint: EndpointView, health: EndpointHealth): string {
  if (health.state === 'disabled') return `disabled (${endpoint.disabledReason ?? 'operator'})`;
  if (health.state === 'failing') return `failing since ${health.failingSince}`;
  return 'healthy';
}

function last24hText(health: EndpointHealth): string {
  const parts = Object.entries(health.last24h)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${count} ${outcome}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

const SECRET_NOTE = [
  'It is shown only now: paysync never prints or logs it again. Give it to the receiving',
  'system, which verifies each delivery with it (any Standard Webhooks library, e.g. the',
  '`standardwebhooks` package: new Webhook(secret).verify(body, headers)); see docs/relay.md.',
];

function addCommand(): Command {
  return new Command('add')
    .description('add an endpoint: paysync will POST signed events to this URL')
    .requiredOption('--url <url>', 'the https:// address of the receiving system')
    .option(
      '--events <patterns>',
      'event types to send, comma-separated: exact types (day.verdict), a kind (transfer.*) or *; default every type',
      patternList,
    )
    .option('--description <text>', 'a note to tell endpoints apart (up to 500 characters)')
    .option('--json', 'print {endpoint, secret} as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync endpoints add --url https://shop.example.com/paysync --events transfer.*,day.verdict
  $ paysync endpoints add --url https://erp.example.com/hooks --description "ERP" --json

Prints the endpoint's id (ep_…) and its signing secret (whsec_…) ONCE. The endpoint gets the
events emitted from now on; older ones only with \`paysync endpoints redeliver\`. URL rules: https://
in live unless PAYSYNC_RELAY_ALLOW_HTTP=true; in live, no loopback, link-local or private
address unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it. Event types: docs/relay.md.
Exit codes: 0 added, 1 the database cannot be reached, 2 bad --url, --events or --description.`,
    )
    .action(
      async (
        flags: { url: string; events?: string[]; description?: string; json?: boolean },
        invoked: Command,
      ) => {
        await withEndpoints(invoked, 'endpoints add', async (db, config) => {
          const { addEndpoint } = await import('../../relay/index.ts');
          const added = await addEndpoint(
            { db, now: cliClock(), environment: config.environment, relay: config.relay },
            {
              url: flags.url,
              ...(flags.events ? { events: flags.events } : {}),
              ...(flags.description !== undefined ? { description: flags.description } : {}),
            },
          );
          if (flags.json) return printJson(added);
          say(
            [
              `Added endpoint ${added.endpoint.id} → ${added.endpoint.url} (events: ${eventsText(added.endpoint.events)})`,
              '',
              'Its signing secret:',
              '',
              `  ${added.secret}`,
              '',
              ...SECRET_NOTE,
              `Check it now: paysync endpoints test ${added.endpoint.id}`,
            ].join('\n'),
          );
        });
      },
    );
}

function listCommand(): Command {
  return new Command('list')
    .description('every endpoint with its health: state, last success, pending deliveries')
    .option('--json', 'print a JSON array of {endpoint, health}')
    .addHelpText(
      'after',
      `
Columns: STATE is healthy, failing since <time> (its last attempts failed) or disabled (why);
PENDING counts deliveries not yet made and OLDEST how long the oldest has waited; LAST 24H
counts attempts by outcome. Secrets are never listed.
Exit codes: 0 listed (also when there are none), 1 the database cannot be reached.`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints list', async (db) => {
        const { listEndpoints } = await import('../../relay/index.ts');
        const endpoints = await listEndpoints(db, cliClock());
        if (flags.json) return printJson(endpoints);
        if (endpoints.length === 0) {
          say('No endpoints. Add one: paysync endpoints add --url <https://…>');
          return;
        }
        say(
          renderTable<EndpointWithHealth>(
            [
              { header: 'ID', value: (e) => e.endpoint.id },
              { header: 'URL', value: (e) => e.endpoint.url },
              { header: 'EVENTS', value: (e) => eventsText(e.endpoint.events) },
              { header: 'STATE', value: (e) => stateText(e.endpoint, e.health) },
              { header: 'LAST SUCCESS', value: (e) => formatTime(e.health.lastSuccessAt) },
              { header: 'PENDING', value: (e) => String(e.health.pending), align: 'right' },
              { header: 'OLDEST', value: (e) => age(e.health.oldestPendingAgeMs) },
              { header: 'LAST 24H', value: (e) => last24hText(e.health) },
            ],
            endpoints,
          ),
        );
      });
    });
}

function attemptLines(attempts: readonly AttemptView[]): string {
  if (attempts.length === 0) return 'No attempts yet.';
  return renderTable<AttemptView>(
    [
      { header: 'AT (UTC)', value: (a) => a.attemptedAt },
      { header: 'EVENT', value: (a) => a.eventId },
      { header: 'TYPE', value: (a) => a.eventType },
      { header: '#', value: (a) => String(a.attempt), align: 'right' },
      { header: 'OUTCOME', value: (a) => a.outcome },
      { header: 'STATUS', value: (a) => (a.statusCode === null ? '-' : String(a.statusCode)) },
      { header: 'MS', value: (a) => String(a.durationMs), align: 'right' },
      {
        header: 'ANSWER',
        value: (a) => oneLine(a.error ?? a.excerpt ?? '', 60),
      },
    ],
    attempts,
  );
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat || '-';
}

function showCommand(): Command {
  return new Command('show')
    .description('one endpoint: settings, health and its last 20 attempts')
    .argument('<endpoint>', 'ep_… (see `paysync endpoints list`)', endpointIdArgument)
    .option('--json', 'print {endpoint, health, attempts} as JSON')
    .addHelpText(
      'after',
      `
Each attempt: when, the event, the attempt number, the outcome (delivered, failed = non-2xx,
timeout, error = no answer, gone = 410), the status code, the duration and the start of the
answer (at most 1 KB is kept). The secret is never shown; \`rotate-secret\` makes a new one.
Exit codes: 0 shown, 1 no such endpoint or the database cannot be reached, 2 bad id.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints show', async (db) => {
        const { showEndpoint } = await import('../../relay/index.ts');
        const detail = await showEndpoint(db, id, cliClock());
        if (flags.json) return printJson(detail);
        const { endpoint, health } = detail;
        const rows: [string, string][] = [
          ['Endpoint', endpoint.id],
          ['URL', endpoint.url],
          ['Description', endpoint.description ?? '-'],
          ['Events', eventsText(endpoint.events)],
          ['State', stateText(endpoint, health)],
          ['Last success', formatTime(health.lastSuccessAt)],
          [
            'Pending',
            `${health.pending}${health.oldestPendingAt ? ` (oldest emitted ${health.oldestPendingAt}, ${age(health.oldestPendingAgeMs)} ago)` : ''}`,
          ],
          ['Last 24 h', last24hText(health)],
          [
            'Secret',
            endpoint.previousSecretExpiresAt
              ? `rotated; the previous one also signs until ${endpoint.previousSecretExpiresAt}`
              : 'one (never shown again)',
          ],
          ['Created', endpoint.createdAt],
        ];
        say(renderFields(rows));
        say(`\nLast ${detail.attempts.length} attempts, newest first:`);
        say(attemptLines(detail.attempts));
      });
    });
}

function disableCommand(): Command {
  return new Command('disable')
    .description('stop delivering to an endpoint; its pending deliveries wait')
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .option('--json', 'print the endpoint as JSON')
    .addHelpText(
      'after',
      `
A disabled endpoint gets no new deliveries (events emitted meanwhile are not queued for it:
redeliver them after enabling), and its pending ones are not attempted until it is enabled.
Exit codes: 0 disabled (also when it already was), 1 no such endpoint, 2 bad id.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints disable', async (db) => {
        const { disableEndpoint } = await import('../../relay/index.ts');
        const endpoint = await disableEndpoint(db, id, cliClock());
        if (flags.json) return printJson(endpoint);
        say(
          `Disabled endpoint ${id} (${endpoint.disabledReason}). Enable it again: paysync endpoints enable ${id}`,
        );
      });
    });
}

function enableCommand(): Command {
  return new Command('enable')
    .description('deliver to an endpoint again; its pending deliveries go out now')
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .option('--json', 'print {endpoint, pending} as JSON')
    .addHelpText(
      'after',
      `
Clears the failing state; the deliverer of a running daemon takes the pending deliveries at
once. Events emitted while it was disabled were not queued for it: send them with
\`paysync endpoints redeliver <endpoint> --since <when it was disabled>\`.
Exit codes: 0 enabled, 1 no such endpoint, 2 bad id.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints enable', async (db) => {
        const { enableEndpoint } = await import('../../relay/index.ts');
        const enabled = await enableEndpoint(db, id, cliClock());
        if (flags.json) return printJson(enabled);
        say(
          `Enabled endpoint ${id}: ${enabled.pending} pending deliver${enabled.pending === 1 ? 'y goes' : 'ies go'} out now.`,
        );
      });
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .description('delete an endpoint with its deliveries and delivery log')
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .option('--yes', 'really delete (without it, nothing is deleted)')
    .option('--json', 'print the deleted endpoint as JSON')
    .addHelpText(
      'after',
      `
Deletes the endpoint, its deliveries (pending ones are never sent) and their attempts. To
stop for a while instead, use \`paysync endpoints disable\`.
Exit codes: 0 deleted, 1 no such endpoint, 2 bad id or no --yes.`,
    )
    .action(async (id: string, flags: { yes?: boolean; json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints delete', async (db) => {
        const { deleteEndpoint, showEndpoint } = await import('../../relay/index.ts');
        if (!flags.yes) {
          const { endpoint, health } = await showEndpoint(db, id, cliClock());
          throw new CliError(
            `endpoints delete: this deletes ${id} (${endpoint.url}) with its delivery log and ${health.pending} pending deliver${health.pending === 1 ? 'y' : 'ies'}; add --yes to do it`,
            ExitCode.usage,
          );
        }
        const endpoint = await deleteEndpoint(db, id);
        if (flags.json) return printJson({ deleted: endpoint });
        say(`Deleted endpoint ${id} (${endpoint.url}) and its deliveries.`);
      });
    });
}

function rotateCommand(): Command {
  return new Command('rotate-secret')
    .description('give an endpoint a new signing secret; the old one stays valid for 24 h')
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .option('--json', 'print {endpoint, secret, previousValidUntil} as JSON')
    .addHelpText(
      'after',
      `
Prints the new secret ONCE. For 24 hours every delivery carries two signatures (new and old),
so the receiving system verifies with either; put the new secret there within that time.
Rotating again ends the older secret at once. Exit codes: 0 rotated, 1 no such endpoint, 2 bad id.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints rotate-secret', async (db, config) => {
        const { rotateEndpointSecret } = await import('../../relay/index.ts');
        const rotated = await rotateEndpointSecret(db, id, cliClock(), {
          environment: config.environment,
          secretsKeys: config.relay.secretsKeys,
        });
        if (flags.json) return printJson(rotated);
        say(
          [
            `New signing secret for ${id}:`,
            '',
            `  ${rotated.secret}`,
            '',
            `The previous secret keeps signing too until ${rotated.previousValidUntil}: every delivery`,
            'carries both signatures until then. Put the new one in the receiving system before.',
            ...SECRET_NOTE,
          ].join('\n'),
        );
      });
    });
}

function resealCommand(): Command {
  return new Command('reseal-secrets')
    .description('encrypt every endpoint secret with the current key of PAYSYNC_SECRETS_KEY')
    .option('--json', 'print {resealed, current, keyId} as JSON')
    .addHelpText(
      'after',
      `
Seals plain-text secrets (stored before PAYSYNC_SECRETS_KEY was set) and secrets sealed with an
older key with the first key of PAYSYNC_SECRETS_KEY, in one transaction. Run it after adding a
key; once it has run, the older keys can leave PAYSYNC_SECRETS_KEY (docs/relay.md, "Secrets at
rest"). Exit codes: 0 done (also when nothing needed it), 1 no key set, or a secret no key opens
(nothing changed).`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints reseal-secrets', async (db, config) => {
        const { resealEndpointSecrets, SecretKeyError } = await import('../../relay/index.ts');
        let done;
        try {
          done = await resealEndpointSecrets(db, config.relay.secretsKeys, cliClock());
        } catch (error) {
          if (error instanceof SecretKeyError) {
            throw new CliError(`endpoints reseal-secrets: ${error.message}; nothing changed`);
          }
          throw error;
        }
        if (flags.json) return printJson(done);
        say(
          `endpoints reseal-secrets: ${done.resealed} endpoint(s) re-sealed with key "${done.keyId}", ${done.current} already were`,
        );
      });
    });
}

function testCommand(): Command {
  return new Command('test')
    .description('send a signed ping event to an endpoint now and show its answer')
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .option('--json', 'print the answer {outcome, statusCode, durationMs, excerpt, error} as JSON')
    .addHelpText(
      'after',
      `
Sends one \`ping\` event (type ping, signed like any delivery, same timeout and address rules),
nothing stored, nothing retried; works on a disabled endpoint too. A 2xx answer is a success.
Exit codes: 0 the endpoint answered 2xx, 1 it did not (the line says what happened) or no such
endpoint, 2 bad id.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withEndpoints(invoked, 'endpoints test', async (db, config) => {
        const { pingEndpoint, requireEndpoint } = await import('../../relay/index.ts');
        const row = await requireEndpoint(db, id);
        const result = await pingEndpoint(row, config.relay, config.environment, cliClock());
        if (flags.json) printJson(result);
        else {
          const status = result.statusCode === undefined ? '' : ` ${result.statusCode}`;
          say(
            `ping ${result.eventId} → ${row.url}: ${result.outcome}${status} in ${result.durationMs} ms`,
          );
          if (result.error) say(`error: ${result.error}`);
          if (result.excerpt) say(`answer: ${oneLine(result.excerpt, 200)}`);
        }
        if (result.outcome !== 'delivered') process.exitCode = ExitCode.failure;
      });
    });
}

/** Progress on stderr for large redeliveries: in place on a terminal, a line per 10% otherwise. */
function progressReporter(command: string): (p: { done: number; total: number }) => void {
  let lastTenth = -1;
  return ({ done, total }) => {
    if (total < 1_000) return;
    const percent = Math.floor((done / total) * 100);
    if (process.stderr.isTTY) {
      progressLine(`${command}: ${done}/${total} events (${percent}%)`, {
        inPlace: true,
        last: done >= total,
      });
      return;
    }
    const tenth = Math.floor(percent / 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      progressLine(`${command}: ${done}/${total} events (${percent}%)`, { inPlace: false });
    }
  };
}

/**
 * `endpoints redeliver`: the relay's events delivered to an endpoint again. `replay` builds its
 * former name, added hidden so that old scripts keep working (issue 41: `paysync replay` runs
 * inbox events through the workers again, a different thing); each speaks in the name it was
 * called by, so the former name answers exactly as it did.
 */
function redeliverCommand(name: 'redeliver' | 'replay' = 'redeliver'): Command {
  const command = `endpoints ${name}`;
  return new Command(name)
    .description(
      name === 'redeliver'
        ? 'deliver events to an endpoint again: every one since a time, or one by id'
        : 'the former name of `endpoints redeliver` (deprecated; it still works)',
    )
    .argument('<endpoint>', 'ep_…', endpointIdArgument)
    .addOption(
      new Option('--since <time>', `events emitted since: ${TIME_FORMS}`).argParser(
        timeOption('--since'),
      ),
    )
    .option(
      '--type <patterns>',
      'with --since: only these types, comma-separated (transfer.*,day.verdict)',
      patternList,
    )
    .option('--event <id>', 'one event (evt_…), instead of --since')
    .option('--json', 'print the counts as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync ${command} ep_0123456789abcdef0123 --since 2026-11-20T08:00:00Z
  $ paysync ${command} ep_0123456789abcdef0123 --since 1d --type transfer.*
  $ paysync ${command} ep_0123456789abcdef0123 --event evt_01HZX3…

Queues each event of the selection that the endpoint is subscribed to, in event order: a new
delivery, or its delivered or given-up one made pending again (attempts back to 0). The
message is the same (same webhook-id), so a consumer that deduplicates by webhook-id sees each
event once. The running daemon delivers them, in order per item; a disabled endpoint keeps
them until it is enabled. Works in batches, so the database is never held for long.
${
  name === 'redeliver'
    ? '`paysync endpoints replay` is its former name, still accepted (deprecated). Not to be\nconfused with `paysync replay`, which runs received inbox events through the workers again.'
    : 'Its new name is `paysync endpoints redeliver`: `paysync replay` is a different command\n(it runs received inbox events through the workers again).'
}
Exit codes: 0 queued (also when nothing matched), 1 no such endpoint or event, 2 bad flags.`,
    )
    .action(
      async (
        id: string,
        flags: { since?: Date; type?: string[]; event?: string; json?: boolean },
        invoked: Command,
      ) => {
        if ((flags.since === undefined) === (flags.event === undefined)) {
          throw new CliError(
            flags.since === undefined
              ? `${command}: say which events: --since <time> (e.g. --since 1d) or --event evt_…`
              : `${command}: give --since or --event, not both`,
            ExitCode.usage,
          );
        }
        if (flags.event !== undefined && flags.type) {
          throw new CliError(
            `${command}: --type goes with --since; --event names one event already`,
            ExitCode.usage,
          );
        }
        await withEndpoints(invoked, command, async (db) => {
          const { redeliverToEndpoint } = await import('../../relay/index.ts');
          const result = await redeliverToEndpoint(
            { db, now: cliClock() },
            id,
            flags.event !== undefined
              ? { eventId: flags.event }
              : { since: flags.since!, ...(flags.type ? { types: flags.type } : {}) },
            { onProgress: progressReporter(command) },
          );
          if (flags.json) return printJson(result);
          const what =
            flags.event !== undefined
              ? `event ${flags.event}`
              : `${result.matched} event${result.matched === 1 ? '' : 's'} emitted since ${flags.since!.toISOString()}${flags.type ? ` of type ${flags.type.join(',')}` : ''}`;
          const queued = result.created + result.reset;
          say(
            `${command}: ${what}: ${queued} queued for ${id} (${result.created} new, ${result.reset} sent again), ${result.alreadyPending} already pending.${
              result.endpointEnabled
                ? ''
                : ` The endpoint is disabled: they wait until \`paysync endpoints enable ${id}\`.`
            }`,
          );
        });
      },
    );
}

function pendingCommand(): Command {
  return new Command('pending')
    .description('what was never delivered: pending and given-up deliveries, oldest first')
    .option('--endpoint <endpoint>', 'only this endpoint (ep_…)', endpointIdArgument)
    .option('--limit <n>', 'show at most this many', integerOption('--limit', 1, 100_000), 100)
    .option('--json', 'print a JSON array')
    .addHelpText(
      'after',
      `
STATE pending: still to be sent (NEXT is its next try; it may also wait for an earlier event of
its item); gave_up: its retries ran out. Send given-up ones again with
\`paysync endpoints redeliver <endpoint> --event evt_…\` or \`--since\`.
Exit codes: 0 listed (also when nothing is pending), 1 no such endpoint, 2 bad flags.`,
    )
    .action(
      async (flags: { endpoint?: string; limit: number; json?: boolean }, invoked: Command) => {
        await withEndpoints(invoked, 'endpoints pending', async (db) => {
          const { undeliveredEvents } = await import('../../relay/index.ts');
          const rows = await undeliveredEvents(db, {
            ...(flags.endpoint ? { endpointId: flags.endpoint } : {}),
            limit: flags.limit,
          });
          if (flags.json) return printJson(rows);
          if (rows.length === 0) {
            say(
              `Nothing pending${flags.endpoint ? ` for ${flags.endpoint}` : ''}: every event was delivered.`,
            );
            return;
          }
          say(
            renderTable<UndeliveredView>(
              [
                { header: 'ENDPOINT', value: (r) => r.endpoint },
                { header: 'EVENT', value: (r) => r.eventId },
                { header: 'TYPE', value: (r) => r.type },
                { header: 'SUBJECT', value: (r) => r.subject ?? '-' },
                { header: 'STATE', value: (r) => r.state },
                { header: 'ATTEMPTS', value: (r) => String(r.attempts), align: 'right' },
                {
                  header: 'LAST ERROR',
                  value: (r) =>
                    oneLine(
                      r.lastError ?? (r.lastStatus === null ? '' : `HTTP ${r.lastStatus}`),
                      50,
                    ),
                },
                { header: 'NEXT', value: (r) => formatTime(r.nextAttemptAt) },
              ],
              rows,
            ),
          );
        });
      },
    );
}

/** `paysync endpoints …`: the merchant's endpoints the relay delivers signed events to. */
export function endpointsCommand(): Command {
  const endpoints = new Command('endpoints')
    .description(
      "manage the merchant's endpoints that receive paysync's signed events (docs/relay.md)",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync endpoints add --url https://shop.example.com/paysync --events transfer.*,day.verdict
  $ paysync endpoints list
  $ paysync endpoints test ep_0123456789abcdef0123
  $ paysync endpoints redeliver ep_0123456789abcdef0123 --since 1d
  $ paysync endpoints pending

\`endpoints replay\` still works: it is the former name of \`endpoints redeliver\` (deprecated).`,
    );
  for (const sub of [
    addCommand(),
    listCommand(),
    showCommand(),
    disableCommand(),
    enableCommand(),
    deleteCommand(),
    rotateCommand(),
    resealCommand(),
    testCommand(),
    redeliverCommand(),
    pendingCommand(),
  ]) {
    endpoints.addCommand(sub);
  }
  // Hidden from the list; `endpoints redeliver --help` says it is the former name.
  endpoints.addCommand(redeliverCommand('replay'), { hidden: true });
  return endpoints;
}
