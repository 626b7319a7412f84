import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { Component } from '../lifecycle/index.ts';
import { enqueueScheduledTick, type Queues } from '../queues/index.ts';
import { reasonOf } from '../error-reason.ts';

export interface ScheduleEntry {
  readonly task: string;
  readonly jobName: string;
  readonly cron: string;
  /** IANA zone of `cron`. @defaultValue the machine's zone */
  readonly timeZone?: string;
}

/**
 * The time slot a tick stands for: its scheduled time to the second, so every scheduler
 * firing for one slot derives the same job id and the slot runs once.
 */
export function tickSlot(scheduledAt: Date): string {
  return new Date(Math.floor(scheduledAt.getTime() / 1000) * 1000).toISOString();
}

/**
 * node-cron ticks that only enqueue. The work runs on the workers, so a slow task never
 * delays a tick, and any number of schedulers can run side by side.
 */
export function createScheduler(options: {
  readonly queues: Queues;
  readonly entries: readonly ScheduleEntry[];
  readonly logger: Logger;
}): Component {
  const tasks: ScheduledTask[] = [];
  const { logger } = options;
  return {
    name: 'scheduler',
    async start() {
      for (const entry of options.entries) {
        // `off` in PAYSYNC_<TASK>_CRON turns a task off.
        if (entry.cron === 'off') continue;
        const task = createTask(
          entry.cron,
          async (context) => {
            const slot = tickSlot(context.date);
            try {
              await enqueueScheduledTick(options.queues, entry.jobName, { task: entry.task, slot });
            } catch (error) {
              logger.warn(
                {
                  task: entry.task,
                  slot,
                  reason: reasonOf(error),
                },
                'scheduler could not enqueue a tick; the next tick will',
              );
            }
          },
          {
            name: entry.task,
            noOverlap: true,
            ...(entry.timeZone ? { timezone: entry.timeZone } : {}),
          },
        );
        await task.start();
        tasks.push(task);
      }
      logger.info(
        {
          tasks: options.entries
            .filter((e) => e.cron !== 'off')
            .map((e) => `${e.task} (${e.cron})`),
          off: options.entries.filter((e) => e.cron === 'off').map((e) => e.task),
        },
        'scheduler running',
      );
    },
    async stop() {
      for (const task of tasks.splice(0)) await task.destroy();
    },
  };
}
