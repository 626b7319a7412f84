import { maskNumbersInText, sendUnrecordedAlert, type AlertMessage } from '../alerts/index.ts';
import { reasonOf } from '../error-reason.ts';
import type { DatabaseHandle } from '../db/index.ts';
import type { Component } from '../lifecycle/index.ts';
import type { RoleContext } from './roles.ts';
import { databaseUnwritable } from '../metrics/index.ts';
import { inboxWriteProblem } from '../receiver/index.ts';

/** How often the database's writes are probed. */
export const DEFAULT_DATABASE_WRITE_CHECK_MS = 10_000;

interface Outage {
  readonly since: string;
  readonly reason: string;
}

export interface DatabaseWriteWatchOptions {
  /** The queue prefix: the outage's key in Redis is `<prefix>:alert:database_unwritable`. */
  readonly prefix: string;
  /** The database, named in the alert by its URL with any password hidden. */
  readonly database: Pick<DatabaseHandle, 'displayUrl'>;
  /** @defaultValue {@link DEFAULT_DATABASE_WRITE_CHECK_MS} */
  readonly intervalMs?: number | undefined;
}

/**
 * `database_unwritable` (docs/operations.md, "A database that cannot be written"): probes the
 * database's writes every `intervalMs` (the probe `/readyz` runs), sets
 * `paysync_database_unwritable`, and tells people once per outage. The alert cannot be stored in
 * the database it is about, so it goes without a record through the sinks its routing names
 * (Slack, e-mail, webhook, the log), none of which needs the database; `Resolved:` follows on
 * the first write that succeeds. The outage is kept in Redis, so that `serve`, `work` and
 * `schedule` sharing one database send one alert between them; a process that cannot reach
 * Redis sends its own (twice rather than never).
 */
export function databaseWriteWatch(
  context: Pick<RoleContext, 'db' | 'redis' | 'alerts' | 'logger' | 'now' | 'tenant' | 'metrics'>,
  options: DatabaseWriteWatchOptions,
): Component {
  const { logger } = context;
  const { displayUrl } = options.database;
  const key = `${options.prefix}:alert:database_unwritable`;
  const { metrics } = context;
  // The alert's detail names the tenant of a process serving several.
  const named = context.tenant !== undefined ? { tenant: context.tenant } : {};
  const where = context.tenant !== undefined ? `Tenant ${context.tenant}: the` : 'The';
  let outage: Outage | undefined;
  // Unknown at start: the first write that succeeds resolves an outage an earlier process left.
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const send = async (message: AlertMessage) => {
    try {
      const results = await sendUnrecordedAlert(context.alerts, message);
      for (const result of results.filter((r) => !r.delivered)) {
        logger.warn(
          { sink: result.sink, reason: result.error },
          `the ${message.event === 'resolved' ? 'resolved ' : ''}database_unwritable alert could not be sent to ${result.sink}`,
        );
      }
    } catch (error) {
      logger.warn({ reason: reasonOf(error) }, 'the database_unwritable alert could not be sent');
    }
  };
  /** Whether this process is the one to send: the first to claim or clear the outage in Redis. */
  const claimed = (work: () => Promise<boolean>) =>
    work().catch((error: unknown) => {
      logger.warn(
        { reason: reasonOf(error) },
        'Redis does not answer: this process sends the database_unwritable message itself',
      );
      return true;
    });

  const down = async (reason: string) => {
    const at = context.now().toISOString();
    outage = { since: at, reason: maskNumbersInText(reason) };
    settled = true;
    metrics.set(databaseUnwritable, {}, 1);
    logger.error({ reason: outage.reason }, `${where} database cannot take writes`);
    const first = await claimed(
      async () => (await context.redis.set(key, JSON.stringify(outage), 'NX')) === 'OK',
    );
    if (!first) return;
    await send({
      event: 'firing',
      alertId: undefined,
      kind: 'database_unwritable',
      severity: 'critical',
      title: `${where} database cannot take writes`,
      body: `paysync cannot write to ${displayUrl} since ${at}: ${outage.reason}. Webhooks are answered 503, so the service retries them and nothing is lost, but nothing is booked until it can write again. This alert is not recorded (that database cannot hold it); this channel hears when writes succeed again.`,
      hint: 'paysync doctor',
      subject: null,
      detail: { database: displayUrl, reason: outage.reason, ...named },
      at,
    });
  };

  const up = async () => {
    const was = outage;
    outage = undefined;
    metrics.set(databaseUnwritable, {}, 0);
    if (was) logger.info(`${where} database takes writes again`);
    if (settled && !was) return;
    settled = true;
    let left: Outage | undefined = was;
    const first = await claimed(async () => {
      const stored = await context.redis.getdel(key);
      if (stored === null) return false;
      left = JSON.parse(stored) as Outage;
      return true;
    });
    if (!first || !left) return;
    const at = context.now();
    const minutes = Math.max(1, Math.round((at.getTime() - Date.parse(left.since)) / 60_000));
    await send({
      event: 'resolved',
      alertId: undefined,
      kind: 'database_unwritable',
      severity: 'critical',
      title: `${where} database cannot take writes`,
      body: `paysync writes to ${displayUrl} again since ${at.toISOString()}, about ${minutes} min after it could not (${left.reason}). The webhooks the service retried meanwhile are booked as they come.`,
      hint: 'paysync doctor',
      subject: null,
      detail: { database: displayUrl, since: left.since, ...named },
      at: at.toISOString(),
    });
  };

  const check = async () => {
    const problem = await inboxWriteProblem(context.db, { now: context.now });
    if (problem && !outage) await down(problem);
    else if (!problem) await up();
  };
  let stopped = true;
  const tick = () => {
    running = check()
      .catch((error: unknown) =>
        logger.warn({ reason: reasonOf(error) }, 'the database write check failed'),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        timer = setTimeout(tick, options.intervalMs ?? DEFAULT_DATABASE_WRITE_CHECK_MS);
        timer.unref();
      });
  };

  return {
    name: 'database write watch',
    async start() {
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
