import { Command, InvalidArgumentError, Option } from 'commander';
import type {
  BackfillProgress,
  BackfillReport,
  PageTally,
  SweepKind,
} from '../../polling/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { formatAmount } from '../format/format-amount.ts';
import { integerOption } from '../input/parse-integer.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { printJson, say } from '../output.ts';

interface BackfillFlags {
  from: Date;
  to: Date;
  kind?: SweepKind;
  restart?: boolean;
  dryRun?: boolean;
  windowHours?: number;
  rps?: number;
  json?: boolean;
}

function backfillKind(value: string): SweepKind {
  if (value === 'intents' || value === 'transfers') return value;
  throw new InvalidArgumentError(
    `--kind "${value}" is not a list to backfill: use intents or transfers`,
  );
}

function money(tally: PageTally): string {
  const entries = Object.entries(tally.booked).filter(([, amount]) => amount !== 0);
  if (entries.length === 0) return 'nothing';
  return entries
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, amount]) => formatAmount(amount, currency))
    .join(', ');
}

function summary(report: BackfillReport, dryRun: boolean): string[] {
  const t = report.total;
  const verb = dryRun ? 'would be' : '';
  return [
    `backfill: ${dryRun ? 'dry run, nothing written: ' : ''}${t.seen} items: ${t.new} new, ${t.changed} changed, ${t.unchanged} unchanged${verb ? ` (${verb} applied)` : ''}`,
    `backfill: money ${dryRun ? 'that would be ' : ''}booked (settlements, gross per currency): ${money(t)}`,
    `backfill: this run read ${report.thisRun.seen} items in ${report.pages} pages with ${report.upstreamCalls} calls; ${report.skippedWindows} window(s) already committed by an earlier run were not read again`,
  ];
}

/**
 * Progress on a terminal: one bar on stderr (window, items, items/s, ETA). Otherwise a line per
 * window on stdout, unless stdout holds the --json document.
 */
async function progressReporter(json: boolean): Promise<{
  onProgress: (event: BackfillProgress) => void;
  stop: () => void;
}> {
  const startedAt = Date.now();
  const rate = (items: number) =>
    Math.round(items / Math.max(0.001, (Date.now() - startedAt) / 1000));
  if (process.stderr.isTTY) {
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        format:
          'backfill [{bar}] {percentage}% | window {window}/{total} {kind} {windowFrom} | {items} items | {rate} items/s | ETA {eta_formatted}',
        hideCursor: true,
        etaBuffer: 50,
        formatValue: (value, _options, type) =>
          type === 'value' || type === 'total' ? String(Math.floor(Number(value))) : String(value),
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      onProgress(event) {
        const payload = {
          kind: event.kind,
          window: event.window,
          windowFrom: event.windowFrom.slice(0, 10),
          items: event.items,
          rate: rate(event.items),
        };
        // Progress within a window is the share of its time span committed so far.
        const done = event.window - 1 + event.windowDone;
        if (!started) {
          bar.start(event.windows, done, payload);
          started = true;
        }
        bar.update(done, payload);
      },
      stop: () => bar.stop(),
    };
  }
  if (json) return { onProgress: () => undefined, stop: () => undefined };
  return {
    onProgress(event) {
      if (event.type !== 'window-done') return;
      say(
        `backfill: window ${event.window}/${event.windows} ${event.kind} ${event.windowFrom} → ${event.windowTo}: ${event.windowItems} items; ${event.items} items so far, ${rate(event.items)} items/s`,
      );
    },
    stop: () => undefined,
  };
}

/** `paysync backfill --from --to`: load history into the ledger, resumably. */
export function backfillCommand(): Command {
  return new Command('backfill')
    .description('load every payment intent and transfer created in a period into the ledger')
    .requiredOption('--from <time>', `start, inclusive: ${TIME_FORMS}`, timeOption('--from'))
    .requiredOption('--to <time>', 'end, inclusive (same forms as --from)', timeOption('--to'))
    .addOption(
      new Option('--kind <kind>', 'only one list: intents or transfers').argParser(backfillKind),
    )
    .option('--restart', 'forget what an earlier run of this backfill committed and start over')
    .option('--dry-run', 'read and report what would change, write nothing')
    .option(
      '--window-hours <n>',
      'length of one window (default PAYSYNC_BACKFILL_WINDOW_HOURS, 24)',
      integerOption('--window-hours', 1, 24 * 31),
    )
    .option(
      '--rps <n>',
      'requests per second this backfill may use (default PAYSYNC_BACKFILL_RPS, half of PAYSYNC_UPSTREAM_RPS)',
      integerOption('--rps', 1, 10_000),
    )
    .option(
      '--json',
      'print one JSON document: what this run and the whole backfill read and booked',
    )
    .addHelpText(
      'after',
      `
Walks history oldest first, one window at a time, and applies every listed item to the ledger
as a sync job would (via = sweep). Resumable: killed at any point, the same command (same
--from, --to and --kind) continues from the last committed page; --restart starts over.
Re-applying is harmless: the ledger books nothing twice.

Rate limit: every request also passes the deployment's shared budget, PAYSYNC_UPSTREAM_RPS
(shared through Redis with the running daemon), so a backfill never pushes the deployment past
it. Within that budget the backfill takes at most --rps requests per second (default
PAYSYNC_BACKFILL_RPS, or half of PAYSYNC_UPSTREAM_RPS), leaving the rest to the live workers.
Give it more with a higher --rps (up to PAYSYNC_UPSTREAM_RPS), less with a lower one; to raise
the total, raise PAYSYNC_UPSTREAM_RPS for the whole deployment.

On a terminal a progress bar on stderr shows the window, items, items/s and ETA; otherwise one
line per window (none with --json). Exit codes: 0 done, 1 cut short (429s, timeouts: run it
again to resume) or failed, 2 bad arguments or config.

--json prints {"dryRun", "runId" (null on a dry run), "total" and "thisRun": {"seen", "new",
"changed", "unchanged", "missed", "booked": {<currency>: <minor units>}}, "pages",
"upstreamCalls", "skippedWindows", "cutShort"?} on stdout; a backfill cut short prints it and
still exits 1 with its one line on stderr; a failed one prints no document.

Examples:
  $ paysync backfill --from 2030-01-01 --to 2030-03-31
  $ paysync backfill --from 90d --to 1d --kind transfers --rps 2
  $ paysync backfill --from 2030-01-01 --to 2030-01-31 --dry-run
  $ paysync backfill --from 90d --to 1d --json | jq '.total.booked'`,
    )
    .action(async (flags: BackfillFlags, invoked: Command) => {
      if (flags.from.getTime() > flags.to.getTime()) {
        throw new CliError(
          `backfill: --from ${flags.from.toISOString()} is after --to ${flags.to.toISOString()}: give the earlier time first`,
          ExitCode.usage,
        );
      }
      const config = await cliConfig(invoked);
      const { openPollingSession } = await import('./polling-session.ts');
      const { runBackfill } = await import('../../polling/index.ts');
      const { recordScheduledRun } = await import('../../runs/index.ts');
      const { createRequestRateLimiter } = await import('../../upstream/index.ts');
      const session = await openPollingSession(config, 'backfill');
      const progress = await progressReporter(flags.json === true);
      try {
        const rps = Math.min(flags.rps ?? config.polling.backfillRps, config.upstream.rps);
        const deps = {
          now: cliClock,
          db: session.handle.db,
          upstream: session.upstream,
          logger: session.logger,
          environment: config.environment,
          allExpected: config.expectations.allExpected,
          limiter: createRequestRateLimiter({
            rps,
            key: `${config.processing.queuePrefix}:backfill:own-share`,
            merchantId: config.merchantId ?? '',
            environment: config.environment,
          }),
          onProgress: progress.onProgress,
        };
        const request = {
          from: flags.from,
          to: flags.to,
          ...(flags.kind ? { kinds: [flags.kind] } : {}),
          ...(flags.restart ? { restart: true } : {}),
          ...(flags.dryRun ? { dryRun: true } : {}),
          perPage: config.polling.perPage,
          backfillWindowMs:
            (flags.windowHours ?? config.polling.backfillWindowMs / 3_600_000) * 3_600_000,
        };
        let report: BackfillReport | undefined;
        let runId: number | undefined;
        let failure: string | undefined;
        if (flags.dryRun) {
          report = await runBackfill(deps, request);
        } else {
          const recorded = await recordScheduledRun(
            {
              db: session.handle.db,
              logger: session.logger,
              staleRunAfterMs: config.polling.staleRunAfterMs,
              now: cliClock,
            },
            { task: 'backfill', slot: cliClock().toISOString(), trigger: 'manual' },
            (run) => runBackfill(deps, request, run),
          );
          report = recorded.value;
          runId = recorded.runId;
          if (recorded.outcome === 'failed') failure = recorded.error ?? 'unknown reason';
        }
        progress.stop();
        if (failure !== undefined || !report) {
          throw new CliError(
            `backfill: failed: ${failure ?? 'unknown reason'} → fix the cause and run the same command again; it resumes from the last committed page`,
          );
        }
        if (flags.json) {
          printJson({ dryRun: flags.dryRun === true, runId: runId ?? null, ...report });
        } else {
          for (const line of summary(report, flags.dryRun === true)) say(line);
        }
        if (report.cutShort) {
          throw new CliError(
            `backfill: cut short: ${report.cutShort} → run the same command again; it resumes from the last committed page`,
          );
        }
      } finally {
        progress.stop();
        await session.close();
      }
    });
}
