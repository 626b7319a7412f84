import { Command, Option } from 'commander';
import { cliClock, cliConfig } from '../context.ts';
import { CliError } from '../errors.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { say, printJson } from '../output.ts';

/** `paysync receipts backfill`: fetch the receipts missing for settled items. */
export function receiptsCommand(): Command {
  const backfill = new Command('backfill')
    .description(
      'fetch the receipts missing for settled payment intents and transfers (settled before receipts were archived, or whose fetch failed)',
    )
    .addOption(
      new Option('--since <time>', `only items last changed since: ${TIME_FORMS}`).argParser(
        timeOption('--since'),
      ),
    )
    .option('--json', 'print the counts as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync receipts backfill                  every settled item without a receipt
  $ paysync receipts backfill --since 7d

Uses the service credentials and PAYSYNC_RECEIPTS_DIR. A receipt the service is not ready to
give (409) is left in the outbox for the workers to retry; one it does not know (404) is
recorded as a discrepancy. Exit codes: 0 every fetch answered, 1 some failed (counted), 2 bad usage.`,
    )
    .action(async (flags: { since?: Date; json?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { serviceClientFor } = await import('../service-client.ts');
      const { createLogger } = await import('../../logger.ts');
      const { backfillReceipts } = await import('../../receipts/index.ts');
      const upstream = await serviceClientFor(config);
      const handle = await openLedgerDatabase(config, 'receipts backfill');
      let result;
      try {
        result = await backfillReceipts(
          {
            db: handle.db,
            upstream,
            dir: config.receipts.dir,
            now: cliClock,
            logger: createLogger({ level: 'silent', pretty: false }),
          },
          flags.since ? { since: flags.since.toISOString() } : {},
        );
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (flags.json) printJson(result);
      else {
        say(
          `receipts backfill: ${result.candidates} settled item(s) without a receipt: ${result.archived} archived, ${result.retryLater} not ready yet (left for the workers to retry), ${result.discrepancies} recorded as discrepancies, ${result.errors} failed`,
        );
      }
      if (result.errors > 0) {
        throw new CliError(
          `receipts backfill: ${result.errors} fetch(es) failed (service unreachable or refusing); run it again later`,
        );
      }
    });
  const backlog = new Command('backlog')
    .description(
      'the receipts and alerts written and not consumed yet: receipts wait behind the books for the service budget',
    )
    .option('--json', 'print a JSON array instead of lines')
    .addHelpText(
      'after',
      `
Receipts take what the books leave of PAYSYNC_UPSTREAM_RPS (all of it while the books are idle,
PAYSYNC_RECEIPTS_BUDGET_PERCENT of it while both wait), so after a burst their backlog drains
once the books are final. Alerts should never wait long. Reads PAYSYNC_DATABASE_URL.
Exit codes: 0 listed, 1 the database cannot be read.

Examples:
  $ paysync receipts backlog
  $ paysync receipts backlog --json | jq '.[] | select(.kind == "receipt") | .waiting'`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { outboxBacklog } = await import('../../outbox/index.ts');
      const handle = await openLedgerDatabase(config, 'receipts backlog');
      let rows;
      try {
        rows = await outboxBacklog(handle.db);
      } finally {
        await handle.close().catch(() => undefined);
      }
      const shown = (['alert', 'receipt'] as const).map(
        (kind) => rows.find((row) => row.kind === kind) ?? { kind, waiting: 0, oldestAt: null },
      );
      if (flags.json) {
        printJson(shown);
        return;
      }
      for (const row of shown) {
        say(
          `${row.kind}s waiting: ${row.waiting}${row.oldestAt ? ` (oldest since ${row.oldestAt})` : ''}`,
        );
      }
    });
  return new Command('receipts')
    .description('the receipt archive: backfill missing receipts, and the backlog waiting')
    .addCommand(backfill)
    .addCommand(backlog);
}
