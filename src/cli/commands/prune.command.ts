import { Command } from 'commander';
import type { renderTable as RenderTableFn } from '../format/render-table.ts';
import type { TablePruned, TablePruning } from '../../retention/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError } from '../errors.ts';
import { printJson, progressLine, say } from '../output.ts';

interface PruneFlags {
  dryRun?: boolean;
  json?: boolean;
}

const DAY_MS = 86_400_000;

/** A period as the variables spell it: `30d`, `12h`, `15m`, `90s`; `off` when kept for ever. */
function period(ms: number | null): string {
  if (ms === null) return 'off';
  for (const [unit, size] of [
    ['d', DAY_MS],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

function what(plan: TablePruning, count: number): string {
  return plan.removes === 'body' ? `${count} raw bodies` : `${count} rows`;
}

/** Progress on stderr for long runs: a bar per table on a terminal, a line per table otherwise. */
async function progressReporter(): Promise<{
  onProgress: (p: { table: string; done: number; total: number }) => void;
  stop: () => void;
}> {
  if (!process.stderr.isTTY) {
    let lastTenth = -1;
    let lastTable = '';
    return {
      onProgress({ table, done, total }) {
        if (total < 10_000) return;
        const tenth = Math.floor((done / total) * 10);
        if (table === lastTable && tenth === lastTenth) return;
        [lastTable, lastTenth] = [table, tenth];
        progressLine(`prune: ${table} ${done}/${total} (${tenth * 10}%)`, { inPlace: false });
      },
      stop: () => undefined,
    };
  }
  const { default: cliProgress } = await import('cli-progress');
  let bar: InstanceType<typeof cliProgress.SingleBar> | undefined;
  let current = '';
  return {
    onProgress({ table, done, total }) {
      if (total < 1_000) return;
      if (table !== current) {
        bar?.stop();
        current = table;
        bar = new cliProgress.SingleBar(
          {
            format: `prune ${table} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}`,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0);
      }
      bar!.update(done);
    },
    stop: () => bar?.stop(),
  };
}

function planLines(plans: readonly TablePruning[], renderTable: typeof RenderTableFn): string {
  return renderTable<TablePruning>(
    [
      { header: 'TABLE', value: (p) => p.table },
      { header: 'REMOVES', value: (p) => (p.removes === 'body' ? 'raw body' : 'row') },
      { header: 'KEEP FOR', value: (p) => period(p.periodMs), align: 'right' },
      { header: 'OLDER THAN', value: (p) => p.before ?? '-' },
      { header: 'ROWS', value: (p) => (p.before === null ? '-' : String(p.count)), align: 'right' },
      { header: 'OLDEST', value: (p) => p.oldest ?? '-' },
      { header: 'NEWEST', value: (p) => p.newest ?? '-' },
    ],
    plans,
  );
}

/** `paysync prune [--dry-run] [--json]`: apply the retention policy now, or say what it would do. */
export function pruneCommand(): Command {
  return new Command('prune')
    .description(
      'apply the retention policy now: drop old inbox bodies, old outbox rows, run records, alert deliveries, clean-audit records and relay deliveries',
    )
    .option('--dry-run', 'only say, per table, how many rows would go and how old they are')
    .option('--json', 'print the per-table result as JSON')
    .addHelpText(
      'after',
      `
What goes (docs/retention.md; each period is a PAYSYNC_RETENTION_* variable, \`off\` keeps all):
  inbox             processed events lose their raw body and headers after
                    PAYSYNC_RETENTION_INBOX_BODY_AFTER (30d); the row stays (dedupe key, event id
                    and type, resource, outcome), so a redelivered event is still a duplicate and
                    \`paysync show\` still lists it
  outbox            consumed follow-ups, after PAYSYNC_RETENTION_OUTBOX_AFTER (30d); never a pending one
  run records       finished runs, after PAYSYNC_RETENTION_RUNS_AFTER (90d); each task keeps its
                    latest run and its latest success
  alert deliveries  delivered or given-up messages, after PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER (90d)
  audit records     clean-audit records, after PAYSYNC_RETENTION_RUNS_AFTER (90d); the latest clean
                    audit stays (\`paysync audit --since last-clean\` starts from it)
  relay             the delivery log, delivered or given-up deliveries, and events no delivery
                    names, after PAYSYNC_RETENTION_RELAY_AFTER (30d); never a pending delivery
Never pruned: journals and journal lines, mirror rows, status history, discrepancies, balance
snapshots, verdicts, receipts, alerts, closed periods.

The daemon runs the same pruning as the scheduled task \`retention\` (PAYSYNC_RETENTION_CRON,
hourly by default), in batches of PAYSYNC_RETENTION_BATCH rows so no write holds the database
for long; this command is for a first clean-up or to see what the policy does. A real run is
recorded (paysync runs --task retention). Exit codes: 0 done (also when nothing was due), 1 the
database cannot be reached or the pruning failed, 2 bad flags or PAYSYNC_* variable.

Examples:
  $ paysync prune --dry-run
  $ paysync prune
  $ PAYSYNC_RETENTION_INBOX_BODY_AFTER=7d paysync prune --json`,
    )
    .action(async (flags: PruneFlags, invoked: Command) => {
      const { secretValues } = await import('../../config/index.ts');
      const { createLogger } = await import('../../logger.ts');
      const config = await cliConfig(invoked);
      // Log lines go to stderr, errors only unless asked: the command's own lines say the rest.
      const logger = createLogger({
        level: config.logLevel === 'info' ? 'error' : config.logLevel,
        secrets: secretValues(config),
        base: { role: 'prune' },
        pretty: false,
        destination: process.stderr,
      });
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { planPruning, pruneUnderRun } = await import('../../retention/index.ts');
      const { renderTable } = await import('../format/render-table.ts');
      const handle = await openLedgerDatabase(config, 'prune');
      try {
        const now = cliClock();
        if (flags.dryRun) {
          const plans = await planPruning(handle.db, config.retention, now);
          if (flags.json) {
            printJson({ dryRun: true, at: now.toISOString(), tables: plans });
            return;
          }
          say(planLines(plans, renderTable));
          const total = plans.reduce((sum, p) => sum + p.count, 0);
          say(
            `prune: dry run, nothing changed: ${plans
              .filter((p) => p.before !== null)
              .map((p) => `${p.table} ${what(p, p.count)}`)
              .join(', ')} would go (${total} in all).`,
          );
          return;
        }
        const { recordScheduledRun } = await import('../../runs/index.ts');
        const progress = await progressReporter();
        let recorded;
        try {
          recorded = await recordScheduledRun(
            {
              db: handle.db,
              logger,
              staleRunAfterMs: config.polling.staleRunAfterMs,
              now: cliClock,
            },
            { task: 'retention', slot: now.toISOString(), trigger: 'manual' },
            (run) =>
              pruneUnderRun(run, handle.db, config.retention, now, {
                onProgress: progress.onProgress,
              }),
          );
        } finally {
          progress.stop();
        }
        if (recorded.outcome !== 'succeeded' || !recorded.value) {
          throw new CliError(
            `prune: ${recorded.outcome}: ${recorded.error ?? 'unknown reason'} → what was pruned before the failure stays pruned; run it again`,
          );
        }
        const results: TablePruned[] = recorded.value;
        if (flags.json) {
          printJson({
            dryRun: false,
            at: now.toISOString(),
            runId: recorded.runId,
            tables: results,
          });
          return;
        }
        say(
          planLines(
            results.map((r) => ({ ...r, count: r.pruned })),
            renderTable,
          ),
        );
        const longest = Math.max(0, ...results.map((r) => r.longestBatchMs));
        say(
          `prune: pruned ${results
            .filter((r) => r.before !== null)
            .map((r) => `${r.table} ${what(r, r.pruned)}`)
            .join(
              ', ',
            )}; longest batch ${longest} ms; recorded as run ${recorded.runId} (paysync runs --task retention).`,
        );
      } finally {
        await handle.close().catch(() => undefined);
      }
    });
}
