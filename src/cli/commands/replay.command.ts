import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, ExitCode } from '../errors.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { cliConfig } from '../context.ts';
import { printJson, progressLine, say } from '../output.ts';

interface ReplayFlags {
  since?: Date;
  dryRun?: boolean;
  json?: boolean;
}

function inboxId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(id) || id < 1) {
    throw new InvalidArgumentError(
      `"${value}" is not an inbox id: inbox ids are whole numbers (the INBOX column of \`paysync show <id>\`)`,
    );
  }
  return id;
}

/** Progress on stderr for large replays: redrawn in place on a terminal, a line per 10% otherwise. */
function progressReporter(): (p: { done: number; total: number }) => void {
  let lastTenth = -1;
  return ({ done, total }) => {
    if (total < 1_000) return;
    const percent = Math.floor((done / total) * 100);
    if (process.stderr.isTTY) {
      progressLine(`replay: ${done}/${total} events (${percent}%)`, {
        inPlace: true,
        last: done >= total,
      });
      return;
    }
    const tenth = Math.floor(percent / 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      progressLine(`replay: ${done}/${total} events (${percent}%)`, { inPlace: false });
    }
  };
}

/** `paysync replay <inbox-id>` / `paysync replay --since <time>`: re-run inbox events. */
export function replayCommand(): Command {
  return new Command('replay')
    .description('re-run received webhook events through the workers (safe to repeat)')
    .argument('[inbox-id]', 'inbox id of one event (a number)', inboxId)
    .addOption(
      new Option('--since <time>', `every event received since: ${TIME_FORMS}`).argParser(
        timeOption('--since'),
      ),
    )
    .option('--dry-run', 'only count the events that would be queued')
    .option('--json', 'print one JSON document: what matched and what was queued')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync replay 4211                  one event (ids are in the INBOX column of \`paysync show\`)
  $ paysync replay --since 2h            everything received in the last two hours
  $ paysync replay --since 2030-01-10T09:00:00Z --dry-run
  $ paysync replay --since 2h --json | jq .queued

--json prints {"inboxId"|"since", "dryRun", "matched", "queued", "alreadyQueued"} on stdout
(a dry run queues nothing: queued 0); progress on large replays stays on stderr, and a failure
is one line on stderr.

Each event goes back to the ingest queue; a worker fetches the resource's real state again and
applies it. The ledger's unique keys make this a no-op when nothing changed, so replaying twice
books nothing twice. Needs the workers running (\`paysync start\` or \`paysync work\`) to
process what it queues. Exit codes: 0 queued (also when nothing matched a --since), 1 no such
inbox id, or the database or Redis cannot be reached, 2 bad arguments.`,
    )
    .action(async (id: number | undefined, flags: ReplayFlags, invoked: Command) => {
      if ((id === undefined) === (flags.since === undefined)) {
        throw new CliError(
          id === undefined
            ? 'replay: say which events: an inbox id (paysync replay 4211) or --since <time> (paysync replay --since 2h)'
            : 'replay: give an inbox id or --since, not both',
          ExitCode.usage,
        );
      }
      const selection = id !== undefined ? { inboxId: id } : { since: flags.since! };
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { countReplaySelection, replayInboxEvents } = await import('../../replay/index.ts');
      const handle = await openLedgerDatabase(config, 'replay');
      try {
        const matched = await countReplaySelection(handle.db, selection);
        const document = (queued: number, alreadyQueued: number, matchedNow = matched) =>
          printJson({
            ...(id !== undefined ? { inboxId: id } : { since: flags.since!.toISOString() }),
            dryRun: flags.dryRun === true,
            matched: matchedNow,
            queued,
            alreadyQueued,
          });
        const what =
          id !== undefined
            ? `inbox event ${id}`
            : `events received since ${flags.since!.toISOString()}`;
        if (matched === 0) {
          if (id !== undefined) {
            throw new CliError(
              `replay: no inbox event with id ${id} in ${handle.displayUrl}; \`paysync show <resource id>\` lists a resource's inbox ids`,
            );
          }
          if (flags.json) document(0, 0);
          else say(`replay: no ${what} in ${handle.displayUrl}; nothing queued.`);
          return;
        }
        if (flags.dryRun) {
          if (flags.json) {
            document(0, 0);
            return;
          }
          say(
            `replay: ${matched} ${what.replace(/^events /, 'event(s) ')} would be queued (dry run; nothing changed).`,
          );
          return;
        }
        const { openCheckedRedis } = await import('../../daemon/index.ts');
        const { createQueues } = await import('../../queues/index.ts');
        const redis = await openCheckedRedis(config, 'producer');
        const queues = createQueues({ connection: redis, prefix: config.processing.queuePrefix });
        try {
          const result = await replayInboxEvents({ db: handle.db, queues }, selection, {
            onProgress: progressReporter(),
          });
          if (flags.json) {
            document(result.queued, result.alreadyQueued, result.matched);
            return;
          }
          const already =
            result.alreadyQueued > 0
              ? `, ${result.alreadyQueued} already waiting in the queue`
              : '';
          say(
            `replay: queued ${result.queued} of ${result.matched} ${id !== undefined ? `(inbox event ${id})` : `event${result.matched === 1 ? '' : 's'} received since ${flags.since!.toISOString()}`}${already}; the workers will fetch each resource's state again.`,
          );
        } finally {
          await queues.close();
          await redis.quit().catch(() => redis.disconnect());
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
    });
}
