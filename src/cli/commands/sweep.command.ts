import { Command, InvalidArgumentError, Option } from 'commander';
import type { StreamSweepReport, SweepPart, SweepTaskReport } from '../../polling/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { printJson, say } from '../output.ts';

interface SweepFlags {
  kind?: SweepPart;
  since?: Date;
  json?: boolean;
}

const PARTS: readonly SweepPart[] = ['intents', 'transfers', 'refunds', 'payment-refunds'];

function sweepPart(value: string): SweepPart {
  const part = PARTS.find((p) => p === value);
  if (part) return part;
  throw new InvalidArgumentError(
    `--kind "${value}" is not a part of the sweep: use ${PARTS.join(', ')}`,
  );
}

function reportLine(report: StreamSweepReport): string {
  const t = report.tally;
  const head = `${report.kind.padEnd(9)} ${report.from} → ${report.to}: ${t.seen} seen, ${t.new} new, ${t.changed} changed, ${t.unchanged} unchanged, ${t.missed} missed by webhooks; ${report.pages} pages, ${report.upstreamCalls} calls`;
  return report.cutShort
    ? `${head}; CUT SHORT (${report.cutShort}), committed up to ${report.checkpoint}`
    : `${head}; checkpoint ${report.checkpoint}`;
}

/** One line per part of the sweep that ran to the end (a part that failed is in the outcome). */
function reportLines(report: SweepTaskReport): string[] {
  const lines = report.lists.map(reportLine);
  const { refunds, paymentRefunds } = report;
  if (refunds && !refunds.unreadable) {
    lines.push(
      `refunds: ${refunds.listed} listed, ${refunds.unknown} unknown to paysync (a sync of each queued)`,
    );
  }
  if (paymentRefunds) {
    lines.push(
      `payment refunds: ${paymentRefunds.probed} ids asked about, ${paymentRefunds.found} found (a sync of each queued)`,
    );
  }
  return lines;
}

/** `paysync sweep`: one sweep now, in the foreground. */
export function sweepCommand(): Command {
  return new Command('sweep')
    .description('sweep now for payment intents, transfers and refunds webhooks missed')
    .addOption(
      new Option('--kind <kind>', `only one part of the sweep: ${PARTS.join(', ')}`).argParser(
        sweepPart,
      ),
    )
    .addOption(
      new Option(
        '--since <time>',
        `start here instead of at the checkpoint minus PAYSYNC_SWEEP_OVERLAP_MINUTES: ${TIME_FORMS}`,
      ).argParser(timeOption('--since')),
    )
    .option('--json', 'print one JSON document: the outcome, the counts and each part of the sweep')
    .addHelpText(
      'after',
      `
Runs the daemon's sweep task (PAYSYNC_SWEEP_CRON, default every 5 minutes), the same function:
walks GET /payment-intents and GET /transfers over items created from the last checkpoint
(minus the overlap) up to now, applies every listed item to the ledger (as a sync job would),
and moves the checkpoint; then reads GET /refunds and asks about the payment-refund ids in the
gaps of those paysync knows (up to PAYSYNC_PAYMENT_REFUND_PROBES), and queues a sync of every
refund no webhook announced: the daemon's workers book it. The run is recorded (paysync runs --task sweep). It shares PAYSYNC_UPSTREAM_RPS with the
daemon through Redis. Exit codes: 0 swept, 1 the sweep was cut short (429s, timeouts) or
failed, or the database, Redis or the service cannot be reached, 2 bad arguments or config.

--json prints {"outcome": "succeeded"|"partial"|"failed"|"skipped", "runId", "counts":
{"itemsSeen", "itemsChanged", "itemsMissed", "pagesRead", "upstreamCalls"}, "lists": [{"kind",
"from", "to", "tally": {"seen", "new", "changed", "unchanged", "missed", "booked": {<currency>:
<minor units>}}, "pages", "upstreamCalls", "checkpoint", "cutShort"?}], "refunds"?,
"paymentRefunds"?, "error"?} on stdout; a partial or failed sweep still exits 1 with its one
line on stderr.

Examples:
  $ paysync sweep
  $ paysync sweep --kind transfers --since 6h
  $ paysync sweep --json | jq '.counts.itemsMissed'`,
    )
    .action(async (flags: SweepFlags, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { openPollingSession } = await import('./polling-session.ts');
      const { runSweepTask } = await import('../../polling/index.ts');
      const { recordScheduledRun } = await import('../../runs/index.ts');
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
            runSweepTask(
              {
                db: session.handle.db,
                upstream: session.upstream,
                queues: session.queues,
                logger: session.logger,
                environment: config.environment,
                allExpected: config.expectations.allExpected,
                now: cliClock,
              },
              {
                sweepOverlapMs: config.polling.sweepOverlapMs,
                perPage: config.polling.perPage,
                paymentRefundProbes: config.polling.paymentRefundProbes,
                ...(flags.kind ? { parts: [flags.kind] } : {}),
                ...(flags.since ? { since: flags.since } : {}),
              },
              run,
            ),
        );
        if (flags.json) {
          printJson({
            outcome: recorded.outcome,
            runId: recorded.runId ?? null,
            counts: recorded.counts,
            lists: recorded.value?.lists ?? [],
            ...(recorded.value?.refunds ? { refunds: recorded.value.refunds } : {}),
            ...(recorded.value?.paymentRefunds
              ? { paymentRefunds: recorded.value.paymentRefunds }
              : {}),
            ...(recorded.error !== undefined ? { error: recorded.error } : {}),
          });
        } else if (recorded.value) {
          for (const line of reportLines(recorded.value)) say(`sweep: ${line}`);
        }
        if (recorded.outcome === 'failed') {
          throw new CliError(`sweep: failed: ${recorded.error ?? 'unknown reason'}`);
        }
        if (recorded.outcome === 'partial') {
          throw new CliError(
            `sweep: partial: ${recorded.error ?? 'cut short'} → run it again later; it resumes from the checkpoint`,
            ExitCode.failure,
          );
        }
        if (flags.json) return;
        const missed = recorded.counts.itemsMissed;
        say(
          `sweep: succeeded; ${recorded.counts.itemsChanged} item(s) changed, ${missed} of them never named by a webhook.`,
        );
      } finally {
        await session.close();
      }
    });
}
