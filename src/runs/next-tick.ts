import { CronExpressionParser } from 'cron-parser';

/**
 * The first time a scheduled task fires strictly after `after`, as the scheduler reads its cron
 * (in `timeZone`, else the machine's zone, like node-cron); undefined when the cron is `off`.
 */
export function nextTick(cron: string, after: Date, timeZone?: string): Date | undefined {
  if (cron === 'off') return undefined;
  const expression = CronExpressionParser.parse(cron, {
    currentDate: after,
    ...(timeZone ? { tz: timeZone } : {}),
  });
  return expression.next().toDate();
}
