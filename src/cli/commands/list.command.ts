import { Command, Option } from 'commander';
import type { MirrorRecord } from '../../ledger/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import { integerOption } from '../input/parse-integer.ts';
import { LIST_KINDS, listKind, type ListKind } from '../input/list-kind.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { cliConfig } from '../context.ts';
import { say, printJson } from '../output.ts';

const SINGULAR: Record<ListKind, string> = {
  intents: 'payment intent',
  transfers: 'transfer',
  refunds: 'refund',
};

function counted(count: number, kind: ListKind): string {
  return `${count} ${count === 1 ? SINGULAR[kind] : SINGULAR[kind] + 's'}`;
}

interface ListFlags {
  status?: string;
  since?: Date;
  json?: boolean;
  reveal?: boolean;
  limit: number;
}

/** The statuses each kind can be in: the service's own enums. */
async function statusesOf(kind: ListKind): Promise<readonly string[]> {
  const { paymentIntentStatus, transferStatus, refundStatus } =
    await import('../../upstream/contract/index.ts');
  if (kind === 'intents') return paymentIntentStatus.options;
  if (kind === 'transfers') return transferStatus.options;
  return refundStatus.options;
}

async function wantedStatuses(
  kind: ListKind,
  given: string | undefined,
): Promise<string[] | undefined> {
  if (given === undefined) return undefined;
  const known = await statusesOf(kind);
  const wanted = given
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const unknown = wanted.filter((status) => !known.includes(status));
  if (wanted.length === 0 || unknown.length > 0) {
    throw new CliError(
      `list: --status "${given}" is not a status of ${kind}: use one or more (comma-separated) of ${known.join(', ')}`,
      ExitCode.usage,
    );
  }
  return wanted;
}

/** `paysync list intents|transfers|refunds`: the mirror, newest change first. */
export function listCommand(): Command {
  return new Command('list')
    .description('list mirrored resources: intents, transfers or refunds, newest change first')
    .argument('<kind>', 'intents | transfers | refunds', listKind)
    .option(
      '--status <status>',
      'only these statuses, comma-separated (e.g. failed or pending,created)',
    )
    .addOption(
      new Option('--since <time>', `only items the service updated since: ${TIME_FORMS}`).argParser(
        timeOption('--since'),
      ),
    )
    .option('--limit <n>', 'show at most this many', integerOption('--limit', 1, 100_000), 50)
    .option('--json', 'print a JSON array instead of a table (the raw service JSON is in `show`)')
    .option(
      '--reveal',
      'print phone and account numbers in full in --json (masked by default, as in show); do not paste the output into tickets or chat',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync list transfers --status failed --since 24h
  $ paysync list intents --since 2030-01-10T00:00:00Z --limit 200
  $ paysync list refunds --json | jq '.[] | {id, status, amount, currency}'

Statuses: intents payment_required, action_required, processing, successful, failed, canceled;
transfers created, pending, successful, failed; refunds created, pending, pending_manual,
successful, failed. Amounts are integers in the currency's smallest unit, with the human form
beside them. Reads PAYSYNC_DATABASE_URL. Exit codes: 0 listed (also when nothing matched),
1 the database cannot be read, 2 bad kind, --status, --since or --limit.`,
    )
    .action(async (kind: ListKind, flags: ListFlags, invoked: Command) => {
      const statuses = await wantedStatuses(kind, flags.status);
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { listResources } = await import('../../ledger/resource-reads.ts');
      const { renderResourceList, listedRecord } =
        await import('../format/render-resource-list.ts');
      const handle = await openLedgerDatabase(config, 'list');
      let records: MirrorRecord[] = [];
      try {
        const options = {
          ...(statuses ? { status: statuses } : {}),
          ...(flags.since ? { since: flags.since.toISOString() } : {}),
          limit: flags.limit,
        };
        for (const ledgerKind of LIST_KINDS[kind]) {
          records.push(...(await listResources(handle.db, ledgerKind, options)));
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
      records = records
        .sort((a, b) =>
          a.updatedAt === b.updatedAt
            ? a.id.localeCompare(b.id)
            : a.updatedAt < b.updatedAt
              ? 1
              : -1,
        )
        .slice(0, flags.limit);
      if (flags.json) {
        const { maskRecord } = await import('../format/mask-resource-view.ts');
        const shown = flags.reveal === true ? records : records.map((r) => maskRecord(r));
        printJson(shown.map(listedRecord));
        return;
      }
      const filters = [
        statuses ? `status ${statuses.join(' or ')}` : undefined,
        flags.since ? `updated since ${flags.since.toISOString()}` : undefined,
      ].filter(Boolean);
      const matching = filters.length > 0 ? ` with ${filters.join(', ')}` : '';
      if (records.length === 0) {
        say(`No ${SINGULAR[kind]}s${matching} in ${handle.displayUrl}.`);
        return;
      }
      say(renderResourceList(kind, records));
      const more =
        records.length === flags.limit
          ? ` (the --limit of ${flags.limit}; there may be more: raise --limit or narrow with --since)`
          : '';
      say(`\n${counted(records.length, kind)}${matching}, newest change first${more}.`);
    });
}
