import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cronTable } from '../../jobs/cron-table.ts';
import type { Config } from '../config/index.ts';
import { createDatabase, dialectOf } from '../db/index.ts';
import { missedWebhooksSince, taskHealth } from '../runs/index.ts';
import { failed, passed, warned, type CheckResult } from './check-result.ts';

/**
 * Whether every scheduled task succeeded within three of its intervals, and how many items
 * sweeps found that webhooks missed in the last day. Undefined when the database cannot be
 * read (the database check says why) or has no runs table yet (migrations pending).
 */
export async function checkRuns(config: Config, now: Date): Promise<CheckResult | undefined> {
  if (dialectOf(config.databaseUrl) === 'sqlite') {
    const file = config.databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !existsSync(resolve(file))) return undefined;
  }
  let handle;
  try {
    handle = createDatabase(config.databaseUrl, { poolSize: 1 });
  } catch {
    return undefined; // the database check says why it cannot be opened
  }
  try {
    const health = await taskHealth(handle.db, cronTable(config), now);
    const missed = await missedWebhooksSince(
      handle.db,
      new Date(now.getTime() - 24 * 3_600_000).toISOString(),
    );
    const missedText = `${missed} item${missed === 1 ? '' : 's'} found only by sweeps in the last 24 h`;
    const late = health.filter((task) => !task.ok);
    if (late.length === 0) {
      const ran = health.filter((task) => task.hasRun).length;
      const notYet = health.filter((task) => !task.hasRun).map((task) => task.task);
      if (ran === 0) {
        return warned(
          'runs',
          `no runs yet (${health.length} scheduled task${health.length === 1 ? '' : 's'} enabled); ${missedText}`,
          'start `paysync start` (or `paysync schedule` and `paysync work`), then look again',
        );
      }
      const pending =
        notYet.length > 0 ? `, ${notYet.length} with no run yet (${notYet.join(', ')})` : '';
      return passed(
        'runs',
        `${ran} scheduled task${ran === 1 ? '' : 's'} on time${pending}; ${missedText}`,
      );
    }
    return failed(
      'runs',
      `${late.map((task) => task.detail).join('; ')}; ${missedText}`,
      'see `paysync runs --task <task>` for the errors; check that `paysync schedule` (or start) and `paysync work` are running',
    );
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
