import { Command, InvalidArgumentError, Option } from 'commander';
import type { Kysely } from 'kysely';
import type { Config } from '../../config/index.ts';
import type { Database } from '../../db/index.ts';
import type {
  BadRow,
  BreakView,
  ExpectationBreakKind,
  ExpectationContext,
  ExpectationHistoryView,
  ExpectationMatchView,
  ExpectationState,
  ExpectationView,
  ImportResult,
} from '../../expectations/index.ts';
// The words alone, not the index: it loads the whole component (see expectation-words.ts).
import { BREAK_KINDS, EXPECTATION_STATES } from '../../expectations/expectation-words.ts';
import { dayWindow, isCalendarDay, nextDay } from '../../books-calendar/index.ts';
// The one masking policy, a leaf: the alert runtime stays unloaded (see mask-number.ts).
import { maskNumber } from '../../alerts/mask-number.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { formatAmount } from '../format/format-amount.ts';
import { expectationRefusalLine } from '../format/refusal-lines.ts';
import { renderFields } from '../format/render-fields.ts';
import { renderTable } from '../format/render-table.ts';
import { integerOption } from '../input/parse-integer.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { operatorName } from './balances.command.ts';
import { printDocument, printJson, say, sayError } from '../output.ts';

const FORMAT_POINTER = 'The file format, the states and the breaks: docs/expectations.md.';

/** The flag of `expect add` that carries each field, so a refusal names what was typed. */
const FLAG_OF_FIELD: Record<string, string> = {
  expectation_id: '--id',
  direction: '--direction',
  currency: '--currency',
  amount: '--amount',
  amount_min: '--amount-min',
  amount_max: '--amount-max',
  window_from: '--from',
  window_to: '--to',
  reference: '--reference',
  item_id: '--item-id',
  counterparty: '--counterparty',
  purchase_reference: '--purchase-reference',
  description_pattern: '--description',
  item_kinds: '--kinds',
  allow_split: '--split',
  match_group: '--group',
};

function choice<T extends string>(flag: string, values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`${flag} "${value}" is not one of ${values.join(', ')}`);
    }
    return value as T;
  };
}

/** `--metadata key=value`, repeatable. */
function metadataPair(value: string, previous: Record<string, string> = {}) {
  const at = value.indexOf('=');
  if (at <= 0) {
    throw new InvalidArgumentError(`--metadata "${value}" must be key=value (e.g. order=4711)`);
  }
  return { ...previous, [value.slice(0, at).trim()]: value.slice(at + 1) };
}

/** Who makes a manual change: `--by`, or the user running the command. */
function actor(by: string | undefined): string {
  return by !== undefined && by.trim() !== '' ? by.trim() : operatorName();
}

function amountText(e: Pick<ExpectationView, 'amount_min' | 'amount_max' | 'currency'>): string {
  return e.amount_min === e.amount_max
    ? formatAmount(e.amount_min, e.currency)
    : `${formatAmount(e.amount_min, e.currency)} to ${formatAmount(e.amount_max, e.currency)}`;
}

/** Opens the database, runs one call, and turns a refusal into one line and its exit code. */
async function withExpectations<T>(
  invoked: Command,
  what: string,
  run: (db: Kysely<Database>, ctx: ExpectationContext, config: Config) => Promise<T>,
): Promise<T> {
  const config = await cliConfig(invoked);
  const { openLedgerDatabase } = await import('../open-ledger-database.ts');
  const { ExpectationError, ExpectationFileError } = await import('../../expectations/index.ts');
  const handle = await openLedgerDatabase(config, what);
  try {
    return await run(
      handle.db,
      {
        environment: config.environment,
        now: cliClock,
        allExpected: config.expectations.allExpected,
      },
      config,
    );
  } catch (error) {
    if (error instanceof ExpectationError) {
      if (error.refusal === undefined) {
        throw new CliError(
          `${what}: ${error.message}`,
          error.code === 'not_found' ? ExitCode.failure : ExitCode.usage,
        );
      }
      const { line, exitCode } = expectationRefusalLine(error.refusal);
      throw new CliError(`${what}: ${line}`, exitCode);
    }
    if (error instanceof ExpectationFileError) {
      throw new CliError(`${what}: ${error.message}`, ExitCode.usage);
    }
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `2 matched`, and `, 1 partially matched` when there are some. */
function matchedText(counts: { matched: number; partiallyMatched: number }): string {
  return `${counts.matched} matched${counts.partiallyMatched > 0 ? `, ${counts.partiallyMatched} partially matched` : ''}`;
}

function badLines(result: ImportResult): string[] {
  const lines = result.bad.map((row: BadRow) => `  line ${row.line}: ${row.field}: ${row.reason}`);
  const more = result.badCount - result.bad.length;
  if (more > 0) lines.push(`  and ${more} more`);
  return lines;
}

/** A bar on a terminal (by bytes of the file read); nothing otherwise, and never with --json. */
async function importProgress(
  enabled: boolean,
  size: number,
  bytesRead: () => number,
): Promise<{ onProgress?: (rows: number) => void; stop: () => void }> {
  if (!enabled || !process.stderr.isTTY || size === 0) return { stop: () => undefined };
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      format: 'expect import [{bar}] {percentage}% | {rows} rows | ETA {eta_formatted}',
      hideCursor: true,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(size, 0, { rows: 0 });
  return {
    onProgress: (rows) => bar.update(Math.min(size, bytesRead()), { rows }),
    stop: () => bar.stop(),
  };
}

function importCommand(): Command {
  return new Command('import')
    .description('load expectations from a CSV or JSONL file (idempotent by expectation_id)')
    .argument('<file>', 'a .csv file (header-driven) or a .jsonl file (one object per line)')
    .option('--partial', 'load the good rows even when some are bad (the bad ones are listed)')
    .option('--dry-run', 'check every row and say what would change; change nothing')
    .option('--json', 'print the result as JSON (no progress bar)')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect import docs/expectations-sample.csv
  $ paysync expect import payroll-2030-01-10.jsonl --dry-run
  $ paysync expect import orders.csv --partial --json

A new expectation_id is created (open, version 1); the same content again changes nothing; a
changed row is an update (version + 1, history kept). Created and updated rows are matched at
once against the items already settled; "N matched" counts the file's expectations that are
matched once loaded. Amounts are whole
minor units (amount, or amount_min and amount_max); there is no amount_major. A bad row is
refused as "line N: <field>: <reason>" and, without --partial, NOTHING of the file is loaded.
${FORMAT_POINTER}
Exit codes: 0 loaded (with --dry-run: it would load), 1 the database cannot be reached, 2 a
bad file, header or row (nothing loaded; with --partial the good rows load and it exits 0).`,
    )
    .action(
      async (
        file: string,
        flags: { partial?: boolean; dryRun?: boolean; json?: boolean },
        invoked: Command,
      ) => {
        await withExpectations(invoked, 'expect import', async (db, ctx, config) => {
          const { importExpectations, openExpectationFile } =
            await import('../../expectations/index.ts');
          const opened = openExpectationFile(file);
          const progress = await importProgress(!flags.json, opened.size, opened.bytesRead);
          let result: ImportResult;
          try {
            result = await importExpectations(db, ctx, opened.rows, {
              source: opened.source,
              actor: actor(undefined),
              timeZone: config.books.timeZone,
              partial: flags.partial ?? false,
              dryRun: flags.dryRun ?? false,
              ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
            });
          } finally {
            progress.stop();
          }
          const refused = !result.loaded && !result.dryRun;
          // A dry run of a file that would be refused fails too, so a script can check files.
          if (result.badCount > 0 && !flags.partial) process.exitCode = ExitCode.usage;
          if (flags.json) return printJson(result);
          const counts = `${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged; ${matchedText(result)}`;
          const bad = `${result.badCount} bad row${result.badCount === 1 ? '' : 's'}`;
          if (refused) {
            sayError(
              [
                `paysync expect import: ${file}: ${bad}, nothing loaded (fix them, or load the good rows with --partial):`,
                ...badLines(result),
              ].join('\n'),
            );
            return;
          }
          if (result.dryRun) {
            say(
              `expect import ${file} (dry run, nothing changed): would be ${counts}${result.badCount > 0 ? `; ${bad}${flags.partial ? ' would be left out' : ': the file would be refused without --partial'}` : ''}`,
            );
          } else {
            say(
              `expect import ${file}: ${counts}${result.badCount > 0 ? `; ${bad} not loaded` : ''}`,
            );
          }
          if (result.badCount > 0) sayError(badLines(result).join('\n'));
        });
      },
    );
}

interface AddFlags {
  id?: string;
  direction?: string;
  currency?: string;
  amount?: string;
  amountMin?: string;
  amountMax?: string;
  from?: string;
  to?: string;
  reference?: string;
  itemId?: string;
  counterparty?: string;
  purchaseReference?: string;
  description?: string;
  kinds?: string;
  split?: boolean;
  group?: string;
  metadata?: Record<string, string>;
  json?: boolean;
}

function addCommand(): Command {
  return new Command('add')
    .description('add one expectation, or change it (same id): what you expect to receive or pay')
    .requiredOption('--id <expectation-id>', 'your own id of it (an order, a payout line)')
    .requiredOption('--direction <in|out>', 'in: money to receive; out: money to pay')
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. XOF, EUR')
    .option('--amount <minor>', 'the exact amount, in minor units (2500 for 25.00 EUR)')
    .option('--amount-min <minor>', 'lower bound, minor units (with --amount-max)')
    .option('--amount-max <minor>', 'upper bound, minor units (with --amount-min)')
    .requiredOption(
      '--from <time>',
      'window start: a date (that day in PAYSYNC_BOOKS_TIMEZONE) or an ISO time',
    )
    .requiredOption('--to <time>', 'window end: a date (through that day) or an ISO time')
    .option(
      '--reference <text>',
      "your reference: a transfer's reference or an intent's purchase reference",
    )
    .option('--item-id <id>', "the service's id of the item, when known (tr_…, pi_…)")
    .option('--counterparty <number>', 'the payer or recipient number')
    .option('--purchase-reference <text>', "a payment intent's purchase reference")
    .option('--description <pattern>', "pattern on a transfer's description (* wildcard, any case)")
    .option(
      '--kinds <kinds>',
      'item kinds that may pay it, separated by ; or , (payment_intent;payment_link)',
    )
    .option('--split', 'it may be paid by several items (one-to-many)')
    .option('--group <name>', 'expectations of one group may be paid by one item (many-to-one)')
    .option('--metadata <key=value>', 'your own data, kept and echoed (repeatable)', metadataPair)
    .option('--json', 'print {outcome, expectation} as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect add --id order-4711 --direction in --currency XOF --amount 25000 \\
      --from 2030-01-10 --to 2030-01-12 --reference order-4711 --metadata customer=C-88
  $ paysync expect add --id pay-0042 --direction out --currency XOF --amount-min 99000 \\
      --amount-max 100000 --from 2030-01-10 --to 2030-01-10 --counterparty 2250700000042

The same id again with the same content changes nothing; a different content is an update
(version + 1, history kept). A new or changed expectation is matched at once against the items
already settled. ${FORMAT_POINTER}
Exit codes: 0 added, updated or unchanged, 1 the database cannot be reached, 2 a bad flag.`,
    )
    .action(async (flags: AddFlags, invoked: Command) => {
      await withExpectations(invoked, 'expect add', async (db, ctx, config) => {
        const { parseExpectationInput, loadExpectations, findExpectationRow, expectationView } =
          await import('../../expectations/index.ts');
        const raw: Record<string, unknown> = {
          expectation_id: flags.id,
          direction: flags.direction,
          currency: flags.currency,
          amount: flags.amount,
          amount_min: flags.amountMin,
          amount_max: flags.amountMax,
          window_from: flags.from,
          window_to: flags.to,
          reference: flags.reference,
          item_id: flags.itemId,
          counterparty: flags.counterparty,
          purchase_reference: flags.purchaseReference,
          description_pattern: flags.description,
          item_kinds: flags.kinds?.replaceAll(',', ';'),
          allow_split: flags.split ?? false,
          match_group: flags.group,
          metadata: flags.metadata,
        };
        for (const key of Object.keys(raw)) if (raw[key] === undefined) delete raw[key];
        const parsed = parseExpectationInput(raw, { timeZone: config.books.timeZone });
        if (!parsed.ok) {
          const field = parsed.problem.field;
          const flag =
            FLAG_OF_FIELD[field] ?? (field.startsWith('metadata') ? '--metadata' : field);
          throw new CliError(`expect add: ${flag}: ${parsed.problem.reason}`, ExitCode.usage);
        }
        const {
          outcomes: [outcome],
          matched,
          partiallyMatched,
        } = await db.transaction().execute((trx) =>
          loadExpectations(trx, ctx, [parsed.value], {
            source: 'cli',
            actor: actor(undefined),
          }),
        );
        const row = await findExpectationRow(
          db,
          ctx.environment,
          parsed.value.content.expectation_id,
        );
        const expectation = expectationView(row!);
        if (flags.json) return printJson({ outcome, matched, partiallyMatched, expectation });
        say(
          `expect add: ${outcome} ${expectation.expectation_id} (${expectation.direction} ${amountText(expectation)}, version ${expectation.version}, ${expectation.state}); ${matchedText({ matched, partiallyMatched })}`,
        );
      });
    });
}

function cancelCommand(): Command {
  return new Command('cancel')
    .description('cancel an expectation: nothing is expected any more')
    .argument('<id>', 'the expectation id')
    .option('--reason <text>', 'why (kept in its history)')
    .option('--by <name>', 'who cancels it (default: the user running the command)')
    .option('--json', 'print {outcome, expectation} as JSON')
    .addHelpText(
      'after',
      `
Example:
  $ paysync expect cancel order-4711 --reason "order cancelled by the customer"

Its state becomes cancelled; the history keeps who, when and why. Cancelling twice says so and
changes nothing. Re-importing it with changed content updates it and keeps it cancelled.
${FORMAT_POINTER}
Exit codes: 0 cancelled (or already), 1 no such expectation or the database cannot be reached.`,
    )
    .action(
      async (
        id: string,
        flags: { reason?: string; by?: string; json?: boolean },
        invoked: Command,
      ) => {
        await withExpectations(invoked, 'expect cancel', async (db, ctx) => {
          const { cancelExpectation } = await import('../../expectations/index.ts');
          const result = await db.transaction().execute((trx) =>
            cancelExpectation(trx, ctx, id, {
              source: 'cli',
              actor: actor(flags.by),
              reason: flags.reason,
            }),
          );
          if (flags.json) return printJson(result);
          say(
            result.outcome === 'cancelled'
              ? `expect cancel: ${id} cancelled.`
              : `expect cancel: ${id} was already cancelled; nothing changed.`,
          );
        });
      },
    );
}

function listExpectationsCommand(): Command {
  return new Command('list')
    .description(
      'expectations: of one state by window end (due first), or all, the latest loaded first',
    )
    .addOption(
      new Option('--state <state>', 'only this state').argParser(
        choice('--state', EXPECTATION_STATES),
      ),
    )
    .option('--limit <n>', 'show at most this many', integerOption('--limit', 1, 100_000), 100)
    .option('--json', 'print a JSON array (counterparty in full)')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect list --state overdue
  $ paysync expect list --limit 20 --json

States: ${EXPECTATION_STATES.join(', ')}. Counterparty numbers are masked as in alerts
(+221770001234 shows as +22177•••••34); --json has them in full.
${FORMAT_POINTER}
Exit codes: 0 listed (also when there are none), 1 the database cannot be reached, 2 bad flags.`,
    )
    .action(
      async (
        flags: { state?: ExpectationState; limit: number; json?: boolean },
        invoked: Command,
      ) => {
        await withExpectations(invoked, 'expect list', async (db, ctx) => {
          const { listExpectations } = await import('../../expectations/index.ts');
          const rows = await listExpectations(db, ctx.environment, {
            ...(flags.state ? { state: flags.state } : {}),
            limit: flags.limit,
          });
          if (flags.json) return printJson(rows);
          if (rows.length === 0) {
            say(
              `No expectations${flags.state ? ` in state ${flags.state}` : ''}. Load some: paysync expect import <file>`,
            );
            return;
          }
          say(
            renderTable<ExpectationView>(
              [
                { header: 'ID', value: (e) => e.expectation_id },
                { header: 'DIR', value: (e) => e.direction },
                { header: 'AMOUNT', value: (e) => amountText(e), align: 'right' },
                { header: 'WINDOW FROM', value: (e) => e.window_from },
                { header: 'WINDOW TO', value: (e) => e.window_to },
                { header: 'STATE', value: (e) => e.state },
                { header: 'REFERENCE', value: (e) => e.reference ?? '-' },
                {
                  header: 'COUNTERPARTY',
                  value: (e) => (e.counterparty === null ? '-' : maskNumber(e.counterparty)),
                },
                { header: 'VERSION', value: (e) => String(e.version), align: 'right' },
              ],
              rows,
            ),
          );
        });
      },
    );
}

function breakTable(breaks: readonly BreakView[]): string {
  return renderTable<BreakView>(
    [
      { header: 'BREAK', value: (b) => String(b.id), align: 'right' },
      { header: 'KIND', value: (b) => b.kind },
      { header: 'EXPECTATION', value: (b) => b.expectation_id ?? '-' },
      { header: 'ITEM', value: (b) => b.item_id ?? '-' },
      {
        header: 'DIFFERENCE',
        value: (b) =>
          b.difference === null ? '-' : formatAmount(b.difference, b.currency ?? '???'),
        align: 'right',
      },
      { header: 'DETECTED', value: (b) => b.detected_at },
      {
        header: 'STATE',
        value: (b) => (b.state === 'resolved' ? `resolved by ${b.resolved_by ?? '?'}` : 'open'),
      },
    ],
    breaks,
  );
}

function showExpectationCommand(): Command {
  return new Command('show')
    .description('one expectation: its content, state, history, matches and breaks')
    .argument('<id>', 'the expectation id')
    .option('--json', 'print {expectation, history, matches, breaks} as JSON')
    .addHelpText(
      'after',
      `
Example:
  $ paysync expect show order-4711

A manual resolution shows who, when and why. ${FORMAT_POINTER}
Exit codes: 0 shown, 1 no such expectation or the database cannot be reached.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await withExpectations(invoked, 'expect show', async (db, ctx) => {
        const { showExpectation } = await import('../../expectations/index.ts');
        const detail = await showExpectation(db, ctx.environment, id);
        if (flags.json) return printJson(detail);
        const e = detail.expectation;
        const rows: [string, string][] = [
          ['Expectation', e.expectation_id],
          ['Direction', `${e.direction}${e.item_kinds ? ` (${e.item_kinds.join(', ')})` : ''}`],
          ['Amount', amountText(e)],
          ['Window', `${e.window_from} to ${e.window_to}`],
          ['State', e.state],
          ['Matched', formatAmount(e.matched_amount, e.currency)],
          ['Reference', e.reference ?? '-'],
          ['Item id', e.item_id ?? '-'],
          ['Counterparty', e.counterparty === null ? '-' : maskNumber(e.counterparty)],
          ['Purchase ref.', e.purchase_reference ?? '-'],
          ['Description', e.description_pattern ?? '-'],
          ['Split', e.allow_split ? 'yes (one-to-many)' : 'no'],
          ['Group', e.match_group ?? '-'],
          ['Metadata', Object.keys(e.metadata).length === 0 ? '-' : JSON.stringify(e.metadata)],
          ['Version', String(e.version)],
          ['Created', e.created_at],
          ['Updated', e.updated_at],
        ];
        if (e.state === 'resolved_manually') {
          rows.push([
            'Resolved',
            `by hand by ${e.resolved_by ?? '?'} at ${e.resolved_at ?? '?'}: ${e.resolution_reason ?? ''}`,
          ]);
        }
        say(renderFields(rows));
        say('\nHistory:');
        say(
          renderTable<ExpectationHistoryView>(
            [
              { header: 'AT (UTC)', value: (h) => h.at },
              { header: 'VERSION', value: (h) => String(h.version), align: 'right' },
              { header: 'CHANGE', value: (h) => h.change },
              { header: 'SOURCE', value: (h) => h.source },
              { header: 'BY', value: (h) => h.actor ?? '-' },
            ],
            detail.history,
          ),
        );
        say('\nMatches:');
        say(
          detail.matches.length === 0
            ? 'None yet.'
            : renderTable<ExpectationMatchView>(
                [
                  { header: 'ITEM', value: (m) => `${m.item_kind} ${m.item_id}` },
                  {
                    header: 'AMOUNT',
                    value: (m) => formatAmount(m.amount, e.currency),
                    align: 'right',
                  },
                  { header: 'RULE', value: (m) => m.rule },
                  { header: 'SETTLED', value: (m) => `${m.settled_at}${m.late ? ' (late)' : ''}` },
                ],
                detail.matches,
              ),
        );
        say('\nBreaks:');
        if (detail.breaks.length === 0) say('None.');
        else {
          say(breakTable(detail.breaks));
          for (const b of detail.breaks) say(`  ${b.id}: ${b.explanation} → ${b.suggested_action}`);
        }
      });
    });
}

interface ResolveFlags {
  reason: string;
  by?: string;
  break?: ExpectationBreakKind;
  breakId?: number;
  maxDifference?: number;
  currency?: string;
  from?: Date;
  to?: Date;
  dryRun?: boolean;
  json?: boolean;
}

function resolveCommand(): Command {
  return new Command('resolve')
    .description('resolve by hand: one expectation, one break, or every open break of a filter')
    .argument('[id]', 'the expectation id (resolves it and its open breaks)')
    .requiredOption('--reason <text>', 'why (required; kept with who and when)')
    .option('--by <name>', 'who resolves (default: the user running the command)')
    .addOption(
      new Option(
        '--break <kind>',
        `bulk: open breaks of this kind (${BREAK_KINDS.join(', ')})`,
      ).argParser(choice('--break', BREAK_KINDS)),
    )
    .option(
      '--break-id <n>',
      'one break, by its number (see `expect show`)',
      integerOption('--break-id', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--max-difference <minor>',
      'with --break: only breaks whose difference is at most this, either way (minor units)',
      integerOption('--max-difference', 0, Number.MAX_SAFE_INTEGER),
    )
    .option('--currency <code>', 'with --break: only breaks in this currency')
    .addOption(
      new Option('--from <time>', `with --break: detected at or after: ${TIME_FORMS}`).argParser(
        timeOption('--from'),
      ),
    )
    .addOption(
      new Option('--to <time>', 'with --break: detected before (same forms)').argParser(
        timeOption('--to'),
      ),
    )
    .option('--dry-run', 'with --break: list what would be resolved; change nothing')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect resolve order-4711 --reason "paid in cash at the counter"
  $ paysync expect resolve --break-id 42 --reason "bank fee, accepted"
  $ paysync expect resolve --break amount_mismatch --max-difference 5 --currency XOF \\
      --reason "rounding by the payer's bank" --dry-run

Every resolution keeps who (--by, or your user name), when and why, and shows as resolved by
hand everywhere. A bulk resolution prints how many and which. ${FORMAT_POINTER}
Exit codes: 0 resolved (also none matched the filter), 1 no such expectation or break or the
database cannot be reached, 2 bad flags (no --reason, two targets, a cancelled expectation).`,
    )
    .action(async (id: string | undefined, flags: ResolveFlags, invoked: Command) => {
      const targets = [id !== undefined, flags.break !== undefined, flags.breakId !== undefined];
      if (targets.filter(Boolean).length !== 1) {
        throw new CliError(
          'expect resolve: say what to resolve, once: an expectation id, --break-id <n>, or --break <kind> with filters',
          ExitCode.usage,
        );
      }
      const filterFlags = [flags.maxDifference, flags.currency, flags.from, flags.to, flags.dryRun];
      if (flags.break === undefined && filterFlags.some((flag) => flag !== undefined)) {
        throw new CliError(
          'expect resolve: --max-difference, --currency, --from, --to and --dry-run go with --break <kind>',
          ExitCode.usage,
        );
      }
      const by = actor(flags.by);
      await withExpectations(invoked, 'expect resolve', async (db, ctx) => {
        const { resolveExpectation, resolveBreak, resolveBreaks } =
          await import('../../expectations/index.ts');
        if (id !== undefined) {
          const result = await db
            .transaction()
            .execute((trx) =>
              resolveExpectation(trx, ctx, id, { reason: flags.reason, by, source: 'cli' }),
            );
          if (flags.json) return printJson(result);
          say(
            result.outcome === 'resolved'
              ? `expect resolve: ${id} resolved by hand by ${by}${result.breaksResolved > 0 ? `, with its ${result.breaksResolved} open break${result.breaksResolved === 1 ? '' : 's'}` : ''}.`
              : `expect resolve: ${id} was already resolved by hand (by ${result.expectation.resolved_by ?? '?'}); nothing changed.`,
          );
          return;
        }
        if (flags.breakId !== undefined) {
          const breakId = flags.breakId;
          const result = await db
            .transaction()
            .execute((trx) => resolveBreak(trx, ctx, breakId, { reason: flags.reason, by }));
          if (flags.json) return printJson(result);
          say(
            result.outcome === 'resolved'
              ? `expect resolve: break ${breakId} (${result.break.kind}) resolved by hand by ${by}.`
              : `expect resolve: break ${breakId} was already resolved (by ${result.break.resolved_by ?? '?'}); nothing changed.`,
          );
          return;
        }
        const result = await db.transaction().execute((trx) =>
          resolveBreaks(
            trx,
            ctx,
            {
              kind: flags.break!,
              ...(flags.maxDifference !== undefined ? { maxDifference: flags.maxDifference } : {}),
              ...(flags.currency !== undefined ? { currency: flags.currency.toUpperCase() } : {}),
              ...(flags.from !== undefined ? { from: flags.from.toISOString() } : {}),
              ...(flags.to !== undefined ? { to: flags.to.toISOString() } : {}),
            },
            { reason: flags.reason, by, dryRun: flags.dryRun ?? false },
          ),
        );
        if (flags.json) return printJson(result);
        const what = `${result.count} open ${flags.break} break${result.count === 1 ? '' : 's'}`;
        say(
          result.dryRun
            ? `expect resolve (dry run, nothing changed): would resolve ${what}${result.count > 0 ? ':' : '.'}`
            : `expect resolve: resolved ${what} by hand by ${by}${result.count > 0 ? ':' : '.'}`,
        );
        if (result.count > 0) say(breakTable(result.breaks));
      });
    });
}

/** `paysync expect …`: what the merchant expects to receive and pay, loaded and changed by hand. */
/** `paysync expect report --from D --to D`: the expectations due in a period, and its breaks. */
function reportExpectationsCommand(): Command {
  const day = (flag: string) => (value: string) => {
    const text = value.trim();
    if (!isCalendarDay(text)) {
      throw new InvalidArgumentError(
        `${flag} "${value}" is not a calendar day: use YYYY-MM-DD, e.g. 2026-11-21 (a day of PAYSYNC_BOOKS_TIMEZONE)`,
      );
    }
    return text;
  };
  return new Command('report')
    .description(
      'a period (or each of its days): expectations due by state, expected vs matched money, breaks by kind and the open ones',
    )
    .requiredOption('--from <YYYY-MM-DD>', 'first day, in PAYSYNC_BOOKS_TIMEZONE', day('--from'))
    .requiredOption('--to <YYYY-MM-DD>', 'last day, included', day('--to'))
    .option('--by-day', 'one report per day instead of one for the period')
    .addOption(
      new Option('--format <format>', 'table or csv')
        .argParser(choice('--format', ['table', 'csv'] as const))
        .default('table'),
    )
    .option('--json', 'print the report (or the list of daily reports) as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect report --from 2026-11-01 --to 2026-11-30
  $ paysync expect report --from 2026-11-16 --to 2026-11-20 --by-day --format csv > week.csv

An expectation is in a period when its window ends in it; a break, when it was detected in it.
Money per currency in the table; in integer minor units in the CSV and the JSON. ${FORMAT_POINTER}
Exit codes: 0 reported (also when there is nothing), 1 the database cannot be reached, 2 bad flags.`,
    )
    .action(
      async (
        flags: {
          from: string;
          to: string;
          byDay?: boolean;
          format: 'table' | 'csv';
          json?: boolean;
        },
        invoked: Command,
      ) => {
        if (flags.to < flags.from) {
          throw new CliError(
            `expect report: --to ${flags.to} is before --from ${flags.from}: give the first day, then the last`,
            ExitCode.usage,
          );
        }
        if (flags.json && flags.format === 'csv') {
          throw new CliError(
            'expect report: --json and --format csv exclude each other: choose one',
            ExitCode.usage,
          );
        }
        await withExpectations(invoked, 'expect report', async (db, ctx, config) => {
          const { expectationPeriodReport } = await import('../../expectations/index.ts');
          const render = await import('../format/render-expectation-report.ts');
          const zone = config.books.timeZone;
          const periods: [string, string][] = [];
          if (flags.byDay) {
            for (let d = flags.from; d <= flags.to; d = nextDay(d)) periods.push([d, d]);
          } else periods.push([flags.from, flags.to]);
          const reports = [];
          for (const [first, last] of periods) {
            const window = { from: dayWindow(first, zone).from, to: dayWindow(last, zone).to };
            const report = await expectationPeriodReport(db, ctx.environment, window);
            reports.push({ ...report, firstDay: first, lastDay: last });
          }
          if (flags.json) return printJson(flags.byDay ? reports : reports[0]);
          if (flags.format === 'csv') {
            printDocument(render.renderExpectationReportCsv(reports));
            return;
          }
          say(reports.map((r) => render.renderExpectationReportTable(r, zone)).join('\n\n'));
        });
      },
    );
}

export function expectCommand(): Command {
  const expect = new Command('expect')
    .description(
      'expectations: what you expect to receive and to pay, loaded from files and resolved by hand (docs/expectations.md)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync expect import docs/expectations-sample.csv
  $ paysync expect list --state open
  $ paysync expect show order-4711
  $ paysync expect resolve --break amount_mismatch --max-difference 5 --reason "bank rounding"`,
    );
  for (const sub of [
    importCommand(),
    addCommand(),
    cancelCommand(),
    listExpectationsCommand(),
    showExpectationCommand(),
    resolveCommand(),
    reportExpectationsCommand(),
  ]) {
    expect.addCommand(sub);
  }
  return expect;
}
