import type { Config } from '../src/config/index.ts';
import { JobName } from '../src/queues/index.ts';

/** One scheduled task: when it fires, and which job on the `scheduled` queue it enqueues. */
export interface CronEntry {
  readonly task: string;
  readonly jobName: string;
  /** A node-cron expression (five fields, or six with seconds first), or `off`. */
  readonly cron: string;
  /** The variable that sets `cron`, for messages. */
  readonly variable: string;
  /** IANA zone the expression is read in. @defaultValue the machine's zone */
  readonly timeZone?: string;
}

/**
 * Everything the scheduler fires; an entry whose cron is `off` is listed but never fires.
 * Every task's cron comes from `PAYSYNC_<TASK>_CRON`. A tick only enqueues a job whose id is the task and its
 * slot, so two schedulers running at once enqueue each tick once; workers do the work.
 */
export function cronTable(config: Config): CronEntry[] {
  return [
    {
      task: 'recover-inbox',
      jobName: JobName.recoverInbox,
      cron: config.processing.recoveryCron,
      variable: 'PAYSYNC_RECOVERY_CRON',
    },
    {
      task: 'sweep',
      jobName: JobName.sweep,
      cron: config.polling.sweepCron,
      variable: 'PAYSYNC_SWEEP_CRON',
    },
    {
      task: 'janitor',
      jobName: JobName.janitor,
      cron: config.janitor.cron,
      variable: 'PAYSYNC_JANITOR_CRON',
    },
    {
      task: 'balances',
      jobName: JobName.balances,
      cron: config.balances.cron,
      variable: 'PAYSYNC_BALANCE_CRON',
    },
    {
      task: 'verdicts',
      jobName: JobName.verdicts,
      cron: config.balances.verdictCron,
      variable: 'PAYSYNC_VERDICT_CRON',
    },
    {
      task: 'export',
      jobName: JobName.export,
      cron: config.exports.cron,
      variable: 'PAYSYNC_EXPORT_CRON',
      // Daily at 02:00 in the books' zone by default: yesterday there is over.
      timeZone: config.books.timeZone,
    },
    {
      task: 'retention',
      jobName: JobName.retention,
      cron: config.retention.cron,
      variable: 'PAYSYNC_RETENTION_CRON',
    },
    {
      task: 'expectations',
      jobName: JobName.expectations,
      cron: config.expectations.cron,
      variable: 'PAYSYNC_EXPECTATIONS_CRON',
    },
  ];
}
