import { Command } from 'commander';
import type { ScheduledRun } from '../../runs/index.ts';
import { integerOption } from '../input/parse-integer.ts';
import { cliConfig } from '../context.ts';
import { say, printJson } from '../output.ts';

interface RunsFlags {
  task?: string;
  limit: number;
  json?: boolean;
}

function duration(run: ScheduledRun): string {
  if (!run.finishedAt) return 'running';
  const ms = Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** `paysync runs`: recent scheduled runs, newest first, with duration and counts. */
export function runsCommand(): Command {
  return new Command('runs')
    .description('list recent scheduled runs (sweeps, inbox recovery, backfills), newest first')
    .option('--task <task>', 'only this task (recover-inbox, sweep, backfill, …)')
    .option('--limit <n>', 'show at most this many', integerOption('--limit', 1, 10_000), 20)
    .option('--json', 'print a JSON array instead of a table')
    .addHelpText(
      'after',
      `
Columns: SEEN items read, CHANGED items the ledger took (new or newer), MISSED items first
learned from a sweep that no webhook ever named, PAGES list pages read, CALLS upstream requests.
OUTCOME is succeeded, partial (cut short by 429s, timeouts or 5xx; the next run resumes from
CHECKPOINT), failed (an error, or the worker died: the next run of the task marks it) or
running. Reads PAYSYNC_DATABASE_URL. Exit codes: 0 listed, 1 the database cannot be read,
2 bad --limit.

Examples:
  $ paysync runs
  $ paysync runs --task sweep --limit 50
  $ paysync runs --json | jq '.[] | select(.outcome != "succeeded")'`,
    )
    .action(async (flags: RunsFlags, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { recentRuns } = await import('../../runs/index.ts');
      const { renderTable } = await import('../format/render-table.ts');
      const handle = await openLedgerDatabase(config, 'runs');
      let runs: ScheduledRun[];
      try {
        runs = await recentRuns(handle.db, {
          ...(flags.task !== undefined ? { task: flags.task } : {}),
          limit: flags.limit,
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (flags.json) {
        printJson(runs);
        return;
      }
      if (runs.length === 0) {
        const which = flags.task !== undefined ? ` of task "${flags.task}"` : '';
        say(
          `No runs${which} in ${handle.displayUrl} yet: the scheduler (paysync start or paysync schedule) records one per tick.`,
        );
        return;
      }
      const right = 'right' as const;
      say(
        renderTable<ScheduledRun>(
          [
            { header: 'STARTED', value: (r) => r.startedAt },
            { header: 'TASK', value: (r) => r.task },
            { header: 'OUTCOME', value: (r) => r.outcome },
            { header: 'DURATION', value: duration, align: right },
            { header: 'SEEN', value: (r) => String(r.itemsSeen), align: right },
            { header: 'CHANGED', value: (r) => String(r.itemsChanged), align: right },
            { header: 'MISSED', value: (r) => String(r.itemsMissed), align: right },
            { header: 'PAGES', value: (r) => String(r.pagesRead), align: right },
            { header: 'CALLS', value: (r) => String(r.upstreamCalls), align: right },
            {
              header: 'CHECKPOINT / ERROR',
              value: (r) => [r.checkpoint, r.error].filter(Boolean).join(' — ') || '-',
            },
          ],
          runs,
        ),
      );
      const missed = runs.reduce((sum, run) => sum + run.itemsMissed, 0);
      const problems = runs.filter((r) => r.outcome === 'partial' || r.outcome === 'failed');
      say(
        `\n${runs.length} run${runs.length === 1 ? '' : 's'}, newest first; ${problems.length} partial or failed; ${missed} item${missed === 1 ? '' : 's'} found only by sweeps (webhooks missed).`,
      );
    });
}
