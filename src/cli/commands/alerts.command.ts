import { Command, InvalidArgumentError, Option } from 'commander';
import type { Config } from '../../config/index.ts';
import type { Alert, AlertDelivery, AlertDependencies, SinkName } from '../../alerts/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { renderTable } from '../format/render-table.ts';
import { integerOption } from '../input/parse-integer.ts';
import { say, sayError, printJson } from '../output.ts';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The --json of `alerts ack` and `alerts resolve`. */
const ALERT_AS_JSON =
  'print the alert as it now stands, one JSON object (as in `alerts list --json`)';

/** `--for 4h`, `30m`, `2d`, `90s` → milliseconds. */
export function snoozeDuration(value: string): number {
  const match = /^\s*(\d+)\s*([smhd])\s*$/.exec(value);
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : NaN;
  if (!match || !Number.isSafeInteger(ms) || ms <= 0 || ms > 30 * 86_400_000) {
    throw new InvalidArgumentError(
      `--for must be a duration up to 30 days: a whole number and s, m, h or d, for example 4h`,
    );
  }
  return ms;
}

function alertId(value: string): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError(
      `"${value}" is not an alert id: ids are whole numbers (see \`paysync alerts list\`)`,
    );
  }
  return Number(value);
}

const SINK_CHOICES = ['slack', 'email', 'webhook', 'log'] as const;

/** Opens the database and builds the alert runtime (sinks, routing) a command needs. */
async function withAlerts<T>(
  invoked: Command,
  what: string,
  run: (deps: AlertDependencies, config: Config) => Promise<T>,
): Promise<T> {
  const config = await cliConfig(invoked);
  const { openLedgerDatabase } = await import('../open-ledger-database.ts');
  const { createAlertRuntime, AlertRulesError, AlertActionError } =
    await import('../../alerts/index.ts');
  const { createLogger } = await import('../../logger.ts');
  const { secretValues } = await import('../../config/index.ts');
  const logger = createLogger({ level: 'silent', secrets: secretValues(config) });
  let runtime;
  try {
    runtime = createAlertRuntime(config.alerts, logger, {
      now: cliClock,
      environment: config.environment,
    });
  } catch (error) {
    if (error instanceof AlertRulesError) throw new CliError(`${what}: ${error.message}`);
    throw error;
  }
  const handle = await openLedgerDatabase(config, what);
  try {
    return await run({ db: handle.db, alerts: runtime }, config);
  } catch (error) {
    if (error instanceof AlertActionError) throw new CliError(`${what}: ${error.message}`);
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
    await runtime.close();
  }
}

/** Under `alerts list`'s table: what its SENT column says. */
const SENT_LEGEND =
  'SENT: the latest delivery to each sink (ok, pending, failed×attempts); - means none: only the log has it (no sink configured, or none takes this alert).';

/** `slack ok, email failed×2` from the latest delivery per sink; the log is left out. */
function deliverySummary(deliveries: readonly AlertDelivery[]): string {
  const latest = new Map<string, AlertDelivery>();
  for (const delivery of deliveries)
    if (delivery.sink !== 'log') latest.set(delivery.sink, delivery);
  if (latest.size === 0) return '-';
  return [...latest.values()]
    .map((d) =>
      d.status === 'delivered'
        ? `${d.sink} ok`
        : d.status === 'pending'
          ? `${d.sink} pending`
          : `${d.sink} failed×${d.attempts}`,
    )
    .join(', ');
}

function statusText(alert: Alert): string {
  if (alert.status === 'acked' && alert.snoozedUntil) return `snoozed until ${alert.snoozedUntil}`;
  return alert.status;
}

/** `paysync alerts list|ack|resolve|test`. */
export function alertsCommand(): Command {
  const alerts = new Command('alerts').description(
    'list, acknowledge, snooze and resolve alerts; test the alert sinks (docs/alerts.md)',
  );

  alerts
    .command('list')
    .description('alerts, newest first')
    .option('--open', 'only open and acknowledged (not resolved) alerts')
    .option('--json', 'print a JSON array with each alert and its per-sink delivery state')
    .option('--limit <n>', 'show at most this many', integerOption('--limit', 1, 10_000), 100)
    .action(async (flags: { open?: boolean; json?: boolean; limit: number }, invoked: Command) => {
      await withAlerts(invoked, 'alerts list', async ({ db }) => {
        const { listAlerts, deliveriesOf } = await import('../../alerts/index.ts');
        const found = await listAlerts(db, { open: flags.open ?? false, limit: flags.limit });
        if (flags.json) {
          const withDeliveries = [];
          for (const alert of found) {
            const deliveries = (await deliveriesOf(db, alert.id)).map(
              ({ message: _message, ...state }) => state,
            );
            withDeliveries.push({ ...alert, deliveries });
          }
          printJson(withDeliveries);
          return;
        }
        if (found.length === 0) {
          say(flags.open ? 'No open alerts.' : 'No alerts.');
          return;
        }
        const sent = new Map<number, string>();
        for (const alert of found) {
          sent.set(alert.id, deliverySummary(await deliveriesOf(db, alert.id)));
        }
        say(
          renderTable<Alert>(
            [
              { header: 'ID', value: (a) => String(a.id), align: 'right' },
              { header: 'RAISED', value: (a) => a.createdAt },
              { header: 'SEVERITY', value: (a) => a.severity },
              { header: 'KIND', value: (a) => a.kind },
              { header: 'STATUS', value: statusText },
              { header: 'SENT', value: (a) => sent.get(a.id) ?? '' },
              { header: 'TITLE', value: (a) => a.title },
            ],
            found,
          ),
        );
        say(SENT_LEGEND);
      });
    });

  alerts
    .command('ack')
    .description('acknowledge an alert: no more reminders; with --for, a snooze')
    .argument('<id>', 'alert id (see `paysync alerts list`)', alertId)
    .option('--note <text>', 'why, or who is on it')
    .addOption(
      new Option(
        '--for <duration>',
        'snooze: when it ends and the condition still holds, notify again (e.g. 4h, 30m)',
      ).argParser(snoozeDuration),
    )
    .option('--json', ALERT_AS_JSON)
    .addHelpText(
      'after',
      `
Examples:
  $ paysync alerts ack 12 --note "on it"
  $ paysync alerts ack 12 --for 4h --json | jq .snoozedUntil

--json prints the alert {"id", "kind", "severity", "status", "ackedAt", "snoozedUntil", …} on
stdout; a failure is still one line on stderr. Exit codes: 0 acknowledged, 1 no such alert
or the database failed, 2 bad arguments or config.`,
    )
    .action(
      async (
        id: number,
        flags: { note?: string; for?: number; json?: boolean },
        invoked: Command,
      ) => {
        await withAlerts(invoked, 'alerts ack', async (deps) => {
          const { ackAlert } = await import('../../alerts/index.ts');
          const alert = await ackAlert(deps, id, {
            ...(flags.note !== undefined ? { note: flags.note } : {}),
            ...(flags.for !== undefined ? { forMs: flags.for } : {}),
          });
          if (flags.json) {
            printJson(alert);
            return;
          }
          say(
            alert.snoozedUntil
              ? `Alert ${id} snoozed until ${alert.snoozedUntil}: it notifies again then if still open.`
              : `Alert ${id} acknowledged: no more reminders.`,
          );
        });
      },
    );

  alerts
    .command('resolve')
    .description('mark an alert resolved by hand (sinks that were told get a resolved message)')
    .argument('<id>', 'alert id (see `paysync alerts list`)', alertId)
    .option('--note <text>', 'why')
    .option('--json', ALERT_AS_JSON)
    .addHelpText(
      'after',
      `
Examples:
  $ paysync alerts resolve 12 --note "bank confirmed"
  $ paysync alerts resolve 12 --json | jq .resolvedAt

--json prints the alert {"id", "kind", "severity", "status", "resolvedAt", "resolvedBy", …} on
stdout; a failure is still one line on stderr. Exit codes: 0 resolved, 1 no such alert or the
database failed, 2 bad arguments or config.`,
    )
    .action(async (id: number, flags: { note?: string; json?: boolean }, invoked: Command) => {
      await withAlerts(invoked, 'alerts resolve', async (deps) => {
        const { resolveAlert } = await import('../../alerts/index.ts');
        const alert = await resolveAlert(deps, id, flags.note);
        if (flags.json) {
          printJson(alert);
          return;
        }
        say(`Alert ${id} resolved.`);
      });
    });

  alerts
    .command('test')
    .description('send a test alert through each configured sink and say whether it arrived')
    .addOption(new Option('--sink <name>', 'only this sink').choices([...SINK_CHOICES] as string[]))
    .option('--json', 'print one JSON document: ok, and each sink with whether it delivered')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync alerts test
  $ paysync alerts test --sink slack --json | jq '.sinks[] | select(.delivered | not)'

--json prints {"ok", "sinks": [{"sink", "delivered", "error"?}]} on stdout; a sink that failed
is still one line on stderr too.
Exit codes: 0 every sink delivered, 1 a sink failed (one line each), 2 bad usage or configuration.`,
    )
    .action(async (flags: { sink?: SinkName; json?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { createAlertRuntime, sendTestAlert, AlertRulesError } =
        await import('../../alerts/index.ts');
      const { createLogger } = await import('../../logger.ts');
      const { secretValues } = await import('../../config/index.ts');
      const logger = createLogger({
        level: config.logLevel,
        secrets: secretValues(config),
        base: { role: 'alerts-test' },
        // The log sink's line must not land in the JSON document on stdout.
        ...(flags.json ? { pretty: false, destination: process.stderr } : {}),
      });
      let runtime;
      try {
        runtime = createAlertRuntime(config.alerts, logger, {
          now: cliClock,
          environment: config.environment,
        });
      } catch (error) {
        if (error instanceof AlertRulesError) throw new CliError(`alerts test: ${error.message}`);
        throw error;
      }
      try {
        if (flags.sink && !runtime.sinks.has(flags.sink)) {
          throw new CliError(
            `alerts test: sink "${flags.sink}" is not configured → set its PAYSYNC_ALERT_* variables (docs/alerts.md)`,
            ExitCode.usage,
          );
        }
        const results = await sendTestAlert(runtime, flags.sink);
        const failed = results.filter((r) => !r.delivered);
        if (flags.json) {
          printJson({
            ok: failed.length === 0,
            sinks: results.map((r) => ({
              sink: r.sink,
              delivered: r.delivered,
              ...(r.delivered ? {} : { error: r.error }),
            })),
          });
        } else {
          for (const result of results.filter((r) => r.delivered)) {
            say(`${result.sink}: delivered`);
          }
        }
        for (const result of failed) sayError(`${result.sink}: not delivered: ${result.error}`);
        if (failed.length > 0) process.exitCode = ExitCode.failure;
      } finally {
        await runtime.close();
      }
    });
  return alerts;
}
