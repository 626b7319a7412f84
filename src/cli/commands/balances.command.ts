import { userInfo } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Config } from '../../config/index.ts';
import type {
  AccountComparison,
  BalanceDependencies,
  CachedComparison,
  SnapshotBalance,
  SnapshotOutcome,
  UnansweredAccount,
} from '../../balances/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { formatAmount } from '../format/format-amount.ts';
import { renderTable } from '../format/render-table.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { say, printJson } from '../output.ts';

/** Who runs the command, for the record of what they booked. */
export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

const ACCOUNT_TYPES = ['collection', 'transfer', 'transfer-irt', 'cross-border'];

function accountType(value: string): string {
  if (!ACCOUNT_TYPES.includes(value)) {
    throw new InvalidArgumentError(
      `--account "${value}" is not an account type: use one of ${ACCOUNT_TYPES.join(', ')}`,
    );
  }
  return value;
}

interface BalancesFlags {
  at?: Date;
  cached?: boolean;
  history?: boolean;
  account?: string;
  since?: Date;
  openAt?: Date;
  json?: boolean;
}

const VERDICT_WORDS: Record<AccountComparison['verdict'], string> = {
  agrees: 'agrees',
  pending: 'pending (explained)',
  drift: 'DRIFT',
};

function renderComparisons(asOf: string, comparisons: readonly AccountComparison[]): string {
  const lines = [
    `Balances as of ${asOf} (service against ledger; difference = service − ledger)`,
    '',
    renderTable(
      [
        { header: 'ACCOUNT', value: (c: AccountComparison) => c.accountType },
        { header: 'CURRENCY', value: (c) => c.currency },
        { header: 'SERVICE', value: (c) => formatAmount(c.service, c.currency), align: 'right' },
        { header: 'LEDGER', value: (c) => formatAmount(c.ledger, c.currency), align: 'right' },
        {
          header: 'DIFFERENCE',
          value: (c) => `${c.difference} (${formatAmount(c.difference, c.currency)})`,
          align: 'right',
        },
        { header: 'STATE', value: (c) => VERDICT_WORDS[c.verdict] },
        // Cached answers need not list the same accounts: an older one's instant is said.
        ...(comparisons.some((c) => c.asOf !== asOf)
          ? [{ header: 'AS OF', value: (c: AccountComparison) => c.asOf }]
          : []),
      ],
      comparisons,
    ),
  ];
  for (const c of comparisons.filter((c) => c.verdict !== 'agrees')) {
    lines.push(
      '',
      `${c.accountType} ${c.currency}: difference ${formatAmount(c.difference, c.currency)}`,
    );
    for (const candidate of c.candidates) {
      lines.push(
        `  ${candidate.reason.padEnd(10)} ${candidate.resourceId}  ${formatAmount(candidate.amount, c.currency)}  ${candidate.note}`,
      );
    }
    lines.push(
      c.unexplained === 0
        ? '  unexplained: nothing'
        : `  unexplained: ${formatAmount(c.unexplained, c.currency)} → find it with the service and book it with \`paysync adjust\``,
    );
  }
  return lines.join('\n');
}

function renderHistory(rows: readonly SnapshotBalance[]): string {
  if (rows.length === 0) return 'No balance snapshots yet: run `paysync balances` to take one.';
  return renderTable(
    [
      { header: 'AS OF', value: (r: SnapshotBalance) => r.asOf },
      { header: 'KIND', value: (r) => r.kind },
      { header: 'ACCOUNT', value: (r) => r.accountType },
      { header: 'AMOUNT', value: (r) => formatAmount(r.amount, r.currency), align: 'right' },
    ],
    rows,
  );
}

function notInAnswerLine(missing: UnansweredAccount): string {
  return `Not in the service's answer, so not compared (never read as 0): ${missing.accountType} ${missing.currency} (ledger ${formatAmount(missing.ledger, missing.currency)})`;
}

/** With --cached, an account the newest answer omits may be compared above, at an older answer. */
function cachedNotInAnswerLine(cached: CachedComparison, missing: UnansweredAccount): string {
  const older = cached.comparisons.find(
    (c) => c.accountType === missing.accountType && c.currency === missing.currency,
  );
  const line = notInAnswerLine(missing);
  return older ? `${line}; the answer of ${older.asOf} listed it, compared above` : line;
}

/** What `balances` wrote, said first: the name reads like a query, and it is not one. */
function writtenLines(outcome: Extract<SnapshotOutcome, { ok: true }>): string[] {
  const lines = [
    `Took and stored a balance snapshot as of ${outcome.asOf} (for a read-only view of the last one: paysync balances --cached).`,
  ];
  if (outcome.openings.length > 0) {
    lines.push(
      `First snapshot: booked ${outcome.openings.length} opening balance${outcome.openings.length === 1 ? '' : 's'} in the ledger, listed below.`,
    );
  }
  return lines;
}

function renderSnapshot(outcome: Extract<SnapshotOutcome, { ok: true }>): string {
  const lines = [...writtenLines(outcome), renderComparisons(outcome.asOf, outcome.comparisons)];
  for (const opening of outcome.openings) {
    lines.push(
      `Opening balance booked: ${opening.account} ${formatAmount(opening.amount, opening.currency)} as of ${opening.effectiveAt} (${opening.resourceId})`,
    );
  }
  for (const low of outcome.lowBalance) {
    lines.push(
      `LOW BALANCE: ${low.accountType} ${formatAmount(low.amount, low.currency)} is under ${formatAmount(low.minimum, low.currency)}`,
    );
  }
  for (const missing of outcome.unanswered) lines.push(notInAnswerLine(missing));
  if (outcome.unknownAccounts.length > 0) {
    lines.push(
      `Not understood (kept in the raw snapshot): account types ${outcome.unknownAccounts.join(', ')}`,
    );
  }
  return lines.join('\n');
}

/** One line per end-of-day snapshot a `balances` run filled in for a closed day. */
function endOfDayLine(filled: { day: string; outcome: SnapshotOutcome }): string {
  const { day, outcome } = filled;
  if (!outcome.ok) {
    return `End-of-day snapshot of ${day} not taken: ${outcome.problem} (paysync balances --at ${outcome.asOf} tries again)`;
  }
  const off = outcome.comparisons.filter((c) => c.verdict !== 'agrees');
  const summary =
    off.length === 0
      ? 'the ledger agrees on every account'
      : off
          .map(
            (c) =>
              `${c.accountType} ${c.currency} ${c.verdict} ${formatAmount(c.difference, c.currency)}`,
          )
          .join('; ');
  return `End-of-day snapshot of ${day} (as of ${outcome.asOf}) taken: ${summary}; paysync report --date ${day} gives its verdict.`;
}

type LedgerOnly = Omit<BalanceDependencies, 'upstream'>;

/** Runs `run` with the database open; with a client and a poller when it needs the service. */
async function withBalances<T>(config: Config, run: (deps: LedgerOnly) => Promise<T>): Promise<T>;
async function withBalances<T>(
  config: Config,
  run: (deps: BalanceDependencies) => Promise<T>,
  service: 'service',
): Promise<T>;
async function withBalances<T>(
  config: Config,
  run: (deps: BalanceDependencies) => Promise<T>,
  service?: 'service',
): Promise<T> {
  const { openLedgerDatabase } = await import('../open-ledger-database.ts');
  const { createLogger } = await import('../../logger.ts');
  const { secretValues, requireServiceCredentials } = await import('../../config/index.ts');
  if (service) requireServiceCredentials(config);
  const handle = await openLedgerDatabase(config, 'balances');
  try {
    const base = {
      db: handle.db,
      logger: createLogger({
        level: 'silent',
        secrets: secretValues(config),
        base: { role: 'cli' },
      }),
      environment: config.environment,
      lowBalance: config.balances.lowBalance,
      bookedBy: 'paysync balances',
      now: cliClock,
    };
    if (!service) return await (run as (deps: LedgerOnly) => Promise<T>)(base);
    const { serviceClientFor } = await import('../service-client.ts');
    const upstream = await serviceClientFor(config);
    return await run({
      ...base,
      upstream,
      fetch: {
        db: handle.db,
        upstream,
        transferSearchHours: config.processing.transferSearchHours,
        now: cliClock,
      },
    });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `paysync balances`: the service's balances against the ledger's, explained. */
export function balancesCommand(): Command {
  return new Command('balances')
    .description(
      "take and store a balance snapshot (the first one books the opening balances) and compare the service's accounts with the ledger; --cached only reads",
    )
    .addOption(
      new Option('--at <time>', `the instant to ask the balance for: ${TIME_FORMS}`).argParser(
        timeOption('--at'),
      ),
    )
    .option(
      '--cached',
      'read only: the newest stored snapshot of each account, no call to the service, nothing written',
    )
    .option('--history', 'list stored snapshots instead (with --account and --since)')
    .addOption(
      new Option('--account <type>', 'with --history: one account type').argParser(accountType),
    )
    .addOption(
      new Option('--since <time>', `with --history: from this instant: ${TIME_FORMS}`).argParser(
        timeOption('--since'),
      ),
    )
    .addOption(
      new Option(
        '--open-at <time>',
        `book opening balances again, as the service held them at this instant: ${TIME_FORMS}`,
      ).argParser(timeOption('--open-at')),
    )
    .option('--json', 'print JSON (`difference` is service minus ledger, in minor units)')
    .addHelpText(
      'after',
      `
This writes: it asks the service for its balances and stores the snapshot; the first time, it
also books the opening balances in the ledger (one per account and currency), as the service
held them just before the earliest item. Without --at, it then takes the end-of-day snapshot
of every closed day (in PAYSYNC_BOOKS_TIMEZONE) that lacks one, as the hourly balance task
does, so \`paysync report\` can judge yesterday at once. For a read-only view of the last
snapshot, with no call to the service and nothing written: paysync balances --cached.

Examples:
  $ paysync balances                          snapshot now; service vs ledger per account and currency
  $ paysync balances --cached --json          the last snapshot, no call to the service
  $ paysync balances --at 2026-11-21T00:00:00Z
  $ paysync balances --history --account transfer --since 7d
  $ paysync balances --open-at 2026-01-01     book opening balances again (after a backfill, say)

A difference explained by items the service settled but paysync has not booked yet is
"pending", listed with their ids. Anything else is drift: it is recorded as a balance_drift
discrepancy until a later snapshot agrees; book money moved without an item with
\`paysync adjust\`. Amounts are minor units with the human form beside them.
Exit codes: 0 shown, 1 the service's balance could not be read (or the database), 2 bad flags.`,
    )
    .action(async (flags: BalancesFlags, invoked: Command) => {
      const config = await cliConfig(invoked);
      if ((flags.account || flags.since) && !flags.history) {
        throw new CliError('balances: --account and --since go with --history', ExitCode.usage);
      }
      const balances = await import('../../balances/index.ts');
      if (flags.history) {
        const rows = await withBalances(config, (deps) =>
          balances.snapshotHistory(deps.db, {
            environment: deps.environment,
            ...(flags.account ? { accountType: flags.account } : {}),
            ...(flags.since ? { since: flags.since.toISOString() } : {}),
          }),
        );
        if (flags.json) printJson(rows);
        else say(renderHistory(rows));
        return;
      }
      if (flags.cached) {
        const result = await withBalances(config, (deps) => balances.cachedComparison(deps));
        if (!result) {
          throw new CliError(
            'balances: no snapshot stored yet → run `paysync balances` without --cached',
          );
        }
        if (flags.json) printJson(result);
        else {
          say(
            [
              renderComparisons(result.asOf, result.comparisons),
              ...result.unanswered.map((missing) => cachedNotInAnswerLine(result, missing)),
            ].join('\n'),
          );
        }
        return;
      }
      if (flags.openAt) {
        const openAt = flags.openAt.toISOString();
        const booked = await withBalances(
          config,
          (deps) => balances.openBalancesAgain(deps, openAt, operatorName()),
          'service',
        );
        if (flags.json) printJson(booked);
        else if (booked.length === 0)
          say(`No opening balance booked: every account held 0 at ${openAt}.`);
        else {
          for (const o of booked) {
            say(
              `Opening balance booked: ${o.account} ${formatAmount(o.amount, o.currency)} as of ${o.effectiveAt} (${o.resourceId}, opening ${o.journalId})`,
            );
          }
        }
        return;
      }
      const { outcome, endOfDay } = await withBalances(
        config,
        async (deps) => {
          const taken = await balances.takeBalanceSnapshot(
            deps,
            flags.at ? { at: flags.at.toISOString() } : {},
          );
          // Without --at, closed days that lack their end-of-day snapshot get it now, as the
          // hourly task would: a newcomer's `report` for yesterday need not wait for the hour.
          const filled =
            taken.ok && !flags.at
              ? await balances.fillEndOfDaySnapshots(deps, { timeZone: config.books.timeZone })
              : [];
          return { outcome: taken, endOfDay: filled };
        },
        'service',
      );
      if (!outcome.ok) {
        if (flags.json) printJson(outcome);
        throw new CliError(
          `balances: the service's balance could not be read: ${outcome.problem} (recorded as discrepancy ${outcome.discrepancyId ?? '?'}; nothing was booked)`,
        );
      }
      if (flags.json) printJson({ ...outcome, endOfDay });
      else say([renderSnapshot(outcome), ...endOfDay.map(endOfDayLine)].join('\n'));
    });
}
