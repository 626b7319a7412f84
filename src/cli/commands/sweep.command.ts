import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../../config/index.ts';
import type { StreamSweepReport, SweepKind } from '../../polling/index.ts';
import { cliClock } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';

interface SweepFlags {
  kind?: SweepKind;
  since?: Date;
}

function sweepKind(value: string): SweepKind {
  if (value === 'intents' || value === 'transfers') return value;
  throw new InvalidArgumentError(
    `--kind "${value}" is not a list to sweep: use intents or transfers`,
  );
}

function reportLine(report: StreamSweepReport): string {
  const t = report.tally;
  const head = `${report.kind.padEnd(9)} ${report.from} → ${report.to}: ${t.seen} seen, ${t.new} new, ${t.changed} changed, ${t.unchanged} unchanged, ${t.missed} missed by webhooks; ${report.pages} pages, ${report.upstreamCalls} calls`;
  return report.cutShort
    ? `${head}; CUT SHORT (${report.cutShort}), committed up to ${report.checkpoint}`
    : `${head}; checkpoint ${report.checkpoint}`;
}

/** `paysync sweep`: one sweep now, in the foreground. */
export function sweepCommand(): Command {
  return new Command('sweep')
    .description('sweep the payment-intent and transfer lists now for items webhooks missed')
    .addOption(
      new Option('--kind <kind>', 'only one list: intents or transfers').argParser(sweepKind),
    )
    .addOption(
      new Option(
        '--since <time>',
        `start here instead of at the checkpoint minus PAYSYNC_SWEEP_OVERLAP_MINUTES: ${TIME_FORMS}`,
      ).argParser(timeOption('--since')),
    )
    .addHelpText(
      'after',
      `
Walks GET /payment-intents and GET /transfers over items created from the last checkpoint
(minus the overlap) up to now, applies every listed item to the ledger (as a sync job would),
and moves the checkpoint. What the daemon does on PAYSYNC_SWEEP_CRON (default every 5 minutes).
The run is recorded (paysync runs --task sweep). It shares PAYSYNC_UPSTREAM_RPS with the
daemon through Redis. Exit codes: 0 swept, 1 the sweep was cut short (429s, timeouts) or
failed, or the database, Redis or the service cannot be reached, 2 bad arguments or config.

Examples:
  $ paysync sweep
  $ paysync sweep --kind transfers --since 6h`,
    )
    .action(async (flags: SweepFlags) => {
      const config = loadConfig();
      const { openPollingSession } = await import('./polling-session.ts');
      const { recordScheduledRun, runSweep } = await import('../../polling/index.ts');
      const session = await openPollingSession(config, 'sweep');
      try {
        const startedAt = cliClock().toISOString();
        const recorded = await recordScheduledRun(
          {
            db: session.handle.db,
            logger: session.logger,
            staleRunAfterMs: config.polling.staleRunAfterMs,
            now: cliClock,
          },
          { task: 'sweep', slot: startedAt, trigger: 'manual' },
          (run) =>
            runSweep(
              {
                db: session.handle.db,
                upstream: session.upstream,
                logger: session.logger,
                environment: config.environment,
                now: cliClock,
              },
              {
                sweepOverlapMs: config.polling.sweepOverlapMs,
                perPage: config.polling.perPage,
                ...(flags.kind ? { kinds: [flags.kind] } : {}),
                ...(flags.since ? { since: flags.since } : {}),
              },
              run,
            ),
        );
        for (const report of recorded.value ?? []) console.log(`sweep: ${reportLine(report)}`);
        if (recorded.outcome === 'failed') {
          throw new CliError(`sweep: failed: ${recorded.error ?? 'unknown reason'}`);
        }
        if (recorded.outcome === 'partial') {
          throw new CliError(
            `sweep: partial: ${recorded.error ?? 'cut short'} → run it again later; it resumes from the checkpoint`,
            ExitCode.failure,
          );
        }
        const missed = recorded.counts.itemsMissed;
        console.log(
          `sweep: succeeded; ${recorded.counts.itemsChanged} item(s) changed, ${missed} of them never named by a webhook.`,
        );
      } finally {
        await session.close();
      }
    });
}
