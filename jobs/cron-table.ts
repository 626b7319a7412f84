import type { Config } from '../src/config.ts';
import { JobName } from '../src/queues/index.ts';

/** One scheduled task: when it fires, and which job on the `scheduled` queue it enqueues. */
export interface CronEntry {
  readonly task: string;
  readonly jobName: string;
  /** A node-cron expression (five fields, or six with seconds first). */
  readonly cron: string;
  /** IANA zone the expression is read in. @defaultValue the machine's zone */
  readonly timeZone?: string;
}

/**
 * Everything the scheduler fires. A tick only enqueues a job whose id is the task and its
 * slot, so two schedulers running at once enqueue each tick once; workers do the work.
 */
export function cronTable(config: Config): CronEntry[] {
  return [
    {
      task: 'recover-inbox',
      jobName: JobName.recoverInbox,
      cron: config.processing.recoveryCron,
    },
    ...(config.janitor.cron === 'off'
      ? []
      : [{ task: 'janitor', jobName: JobName.janitor, cron: config.janitor.cron }]),
    // Daily at 02:00 in the books' zone by default: yesterday there is over.
    ...(config.exports.cron === 'off'
      ? []
      : [
          {
            task: 'export',
            jobName: JobName.export,
            cron: config.exports.cron,
            timeZone: config.balances.timeZone,
          },
        ]),
  ];
}
