import { reasonOf } from '../error-reason.ts';
import type { Queues } from '../queues/index.ts';
import type { Component } from '../lifecycle/index.ts';
import { burstPhrase, SEVERITIES, type AlertKind, type Severity } from './alert-kind.ts';
import { hintFor, type AlertMessage } from './alert-message.ts';
import { maskNumbersInText } from './mask-number.ts';
import {
  findLiveAlert,
  insertDeliveries,
  toAlert,
  toDelivery,
  type Alert,
  type AlertDelivery,
} from './alert.repository.ts';
import {
  messageFor,
  raiseAlert,
  resolveAlertsByKey,
  sinksOf,
  type AlertDependencies,
} from './raise-alert.ts';
import type { SinkName } from './sinks/alert-sink.ts';
import { watchConditions } from './watch-conditions.ts';

export interface AlertDelivererOptions {
  /** How often due deliveries, digests, reminders and snoozes are looked at. @defaultValue 5000 */
  readonly pollMs?: number;
  /** How long a worker holds a delivery it is sending. @defaultValue 60000 */
  readonly leaseMs?: number;
  /** Deliveries sent per pass. @defaultValue 25 */
  readonly batchSize?: number;
  /** How often conditions read from state (401 pause, dead jobs) are checked. @defaultValue 30000 */
  readonly conditionIntervalMs?: number;
  /** The queues whose failed jobs raise `dead_jobs`; without them that check is skipped. */
  readonly queues?: Queues;
  /** The environment whose daily verdicts raise `day_not_reconciled`; without it that check is skipped. */
  readonly environment?: string;
}

export interface AlertDeliverer extends Component {
  /** One pass now (tests; `wake` schedules one). */
  runOnce(): Promise<void>;
}

/** Kinds that report something that happened rather than a state that holds. */
const EVENT_KINDS = ['transfer_failed', 'test'];

/** `5 minutes`, `90 seconds`. */
function windowPhrase(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} ${ms === 60_000 ? 'minute' : 'minutes'}`;
  return `${Math.round(ms / 1000)} seconds`;
}

function groupOf(alert: Alert): string {
  const detail = alert.detail;
  const group = detail.group ?? detail.failureCode ?? detail.code;
  return typeof group === 'string' && group !== '' ? group : 'other';
}

/**
 * The digest of a burst: "37 transfers failed in the last 5 minutes: 30 × recipient_not_found,
 * 7 × provider_unavailable; top 5 listed", then the five largest (or newest) of them.
 */
export function digestMessage(
  kind: AlertKind,
  digestId: number,
  alerts: readonly Alert[],
  windowMs: number,
  at: string,
  listed = 5,
): AlertMessage {
  const groups = new Map<string, number>();
  for (const alert of alerts) groups.set(groupOf(alert), (groups.get(groupOf(alert)) ?? 0) + 1);
  const breakdown = [...groups.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([group, count]) => `${count} × ${group}`)
    .join(', ');
  const amountOf = (alert: Alert) =>
    typeof alert.detail.amount === 'number' ? alert.detail.amount : -1;
  const top = [...alerts]
    .sort((a, b) => amountOf(b) - amountOf(a) || b.createdAt.localeCompare(a.createdAt))
    .slice(0, listed);
  const severity = alerts.reduce<Severity>(
    (worst, alert) =>
      SEVERITIES.indexOf(alert.severity) > SEVERITIES.indexOf(worst) ? alert.severity : worst,
    'info',
  );
  const title = `${burstPhrase(kind, alerts.length)} in the last ${windowPhrase(windowMs)}`;
  const body = [
    `${title}: ${breakdown}; top ${top.length} listed:`,
    ...top.map((alert) => `• ${alert.title} (\`${hintFor(alert.subject, alert.id)}\`)`),
    `All ${alerts.length}: alerts ${alerts.map((alert) => alert.id).join(', ')} (\`paysync alerts list --open\`).`,
  ].join('\n');
  return {
    event: 'digest',
    alertId: undefined,
    digestId,
    kind,
    severity,
    title,
    body,
    hint: 'paysync alerts list --open',
    subject: null,
    detail: { count: alerts.length, groups: Object.fromEntries(groups), windowMs },
    alertIds: alerts.map((alert) => alert.id),
    at,
  };
}

/**
 * Sends pending deliveries with their back-off, closes digests whose window ended, sends
 * reminders of open alerts nobody acknowledged and reopens snoozed ones. It polls the
 * database (and is woken right after a raise in this process), so deliveries survive a
 * Redis loss or a restart, and several workers may run it: each row is leased before it is
 * sent. A scheduled poll rather than a queue: the state lives in `alert_deliveries` anyway.
 */
export function createAlertDeliverer(
  deps: AlertDependencies,
  options: AlertDelivererOptions = {},
): AlertDeliverer {
  const { db, alerts: runtime } = deps;
  const pollMs = options.pollMs ?? 5000;
  const leaseMs = options.leaseMs ?? 60_000;
  const batchSize = options.batchSize ?? 25;
  const conditionIntervalMs = options.conditionIntervalMs ?? 30_000;
  let conditionsCheckedAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;

  async function closeDueDigests(now: Date): Promise<void> {
    const at = now.toISOString();
    const due = await db
      .selectFrom('alert_digests')
      .selectAll()
      .where('status', '=', 'collecting')
      .where('due_at', '<=', at)
      .execute();
    for (const digest of due) {
      await db.transaction().execute(async (trx) => {
        const claimed = await trx
          .updateTable('alert_digests')
          .set({ status: 'sent', open_key: null, sent_at: at })
          .where('id', '=', digest.id)
          .where('status', '=', 'collecting')
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) return;
        const rows = await trx
          .selectFrom('alerts')
          .selectAll()
          .where('kind', '=', digest.kind)
          .where('created_at', '>=', digest.window_start)
          .where('created_at', '<=', digest.due_at)
          .orderBy('id')
          .execute();
        const members = rows.map(toAlert);
        const message = digestMessage(
          digest.kind as AlertKind,
          Number(digest.id),
          members,
          runtime.pacing.digestWindowMs,
          at,
        );
        await trx
          .updateTable('alert_digests')
          .set({ alert_count: members.length })
          .where('id', '=', digest.id)
          .execute();
        await trx
          .updateTable('alerts')
          .set({ notified_at: at })
          .where(
            'id',
            'in',
            members
              .filter((alert) => alert.digested)
              .map((alert) => alert.id)
              .concat([-1]),
          )
          .execute();
        await insertDeliveries(
          trx,
          message,
          sinksOf(runtime, message.kind, message.severity, {}),
          at,
        );
      });
    }
  }

  async function remindAndReopen(now: Date): Promise<void> {
    const at = now.toISOString();
    const remindBefore = new Date(now.getTime() - runtime.pacing.renotifyAfterMs).toISOString();
    const due = await db
      .selectFrom('alerts')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([
            eb('status', '=', 'open'),
            eb('digested', '=', 0),
            // A failed transfer is an event, not a condition that may still hold: no reminders.
            eb('kind', 'not in', EVENT_KINDS),
            eb('notified_at', '<=', remindBefore),
          ]),
          eb.and([eb('status', '=', 'acked'), eb('snoozed_until', '<=', at)]),
        ]),
      )
      .limit(100)
      .execute();
    for (const row of due) {
      await db.transaction().execute(async (trx) => {
        // Conditional on what we read, so two workers never remind twice.
        const updated = await trx
          .updateTable('alerts')
          .set({ status: 'open', snoozed_until: null, notified_at: at })
          .where('id', '=', row.id)
          .where('status', '=', row.status)
          .where((eb) =>
            row.notified_at === null
              ? eb('notified_at', 'is', null)
              : eb('notified_at', '=', row.notified_at),
          )
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) return;
        const alert = toAlert(row);
        await insertDeliveries(
          trx,
          messageFor(alert, 'reminder', at),
          sinksOf(runtime, alert.kind, alert.severity, alert.detail),
          at,
        );
      });
    }
  }

  async function claim(delivery: AlertDelivery, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const result = await db
      .updateTable('alert_deliveries')
      .set({ claimed_until: new Date(now.getTime() + leaseMs).toISOString() })
      .where('id', '=', delivery.id)
      .where('status', 'in', ['pending', 'failed'])
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', at)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function attempt(delivery: AlertDelivery): Promise<void> {
    const sink = runtime.sinks.get(delivery.sink as SinkName);
    const attempts = delivery.attempts + 1;
    let failure: string | undefined;
    if (!sink) failure = `sink "${delivery.sink}" is no longer configured`;
    else {
      try {
        await sink.send(delivery.message, delivery.id);
      } catch (error) {
        // A server's reply may echo what it refused, a number included.
        failure = maskNumbersInText(reasonOf(error));
      }
    }
    const finished = runtime.now();
    if (failure === undefined) {
      await db
        .updateTable('alert_deliveries')
        .set({
          status: 'delivered',
          attempts,
          delivered_at: finished.toISOString(),
          next_attempt_at: null,
          claimed_until: null,
        })
        .where('id', '=', delivery.id)
        .execute();
      if (delivery.sink !== 'log' && (await findLiveAlert(db, `sink_failing:${delivery.sink}`))) {
        await resolveAlertsByKey(deps, `sink_failing:${delivery.sink}`);
      }
      return;
    }
    const delay = runtime.pacing.retryDelaysMs[attempts - 1];
    await db
      .updateTable('alert_deliveries')
      .set({
        status: 'failed',
        attempts,
        last_error: failure,
        next_attempt_at:
          delay === undefined ? null : new Date(finished.getTime() + delay).toISOString(),
        claimed_until: null,
      })
      .where('id', '=', delivery.id)
      .execute();
    runtime.logger.warn(
      {
        deliveryId: delivery.id,
        sink: delivery.sink,
        attempts,
        retryInMs: delay ?? null,
        reason: failure,
      },
      delay === undefined
        ? `alert delivery to ${delivery.sink} failed for good after ${attempts} tries`
        : `alert delivery to ${delivery.sink} failed; retrying later`,
    );
    if (
      delivery.sink !== 'log' &&
      delivery.message.kind !== 'sink_failing' &&
      attempts >= runtime.pacing.sinkFailingAfter
    ) {
      await raiseAlert(deps, {
        kind: 'sink_failing',
        dedupeKey: `sink_failing:${delivery.sink}`,
        title: `Alert sink ${delivery.sink} keeps failing: ${failure}`,
        body: `Alert sink ${delivery.sink} failed ${attempts} times in a row delivering alert messages. Last error: ${failure}. Alerts meant for it are not reaching anyone there.`,
        detail: { sink: delivery.sink, attempts, lastError: failure, group: delivery.sink },
        resolvesWhen: `when a delivery to ${delivery.sink} succeeds`,
      });
    }
  }

  async function sendDue(now: Date): Promise<void> {
    const at = now.toISOString();
    const rows = await db
      .selectFrom('alert_deliveries')
      .selectAll()
      .where('status', 'in', ['pending', 'failed'])
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', at)]))
      .orderBy('id')
      .limit(batchSize)
      .execute();
    const mine: AlertDelivery[] = [];
    for (const row of rows) {
      const delivery = toDelivery(row);
      if (await claim(delivery, now)) mine.push(delivery);
    }
    await Promise.all(mine.map((delivery) => attempt(delivery)));
  }

  async function pass(): Promise<void> {
    const now = runtime.now();
    if (now.getTime() - conditionsCheckedAt >= conditionIntervalMs) {
      conditionsCheckedAt = now.getTime();
      await watchConditions(deps, {
        ...(options.queues ? { queues: options.queues } : {}),
        ...(options.environment ? { environment: options.environment } : {}),
      });
    }
    await closeDueDigests(now);
    await remindAndReopen(now);
    await sendDue(now);
  }

  function runOnce(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await pass();
        } while (again && !stopped);
      } catch (error) {
        runtime.logger.error(
          { reason: reasonOf(error) },
          'alert deliverer pass failed; trying again at the next poll',
        );
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  runtime.onWake(() => {
    if (!stopped) void runOnce();
  });

  return {
    name: 'alert-deliverer',
    runOnce,
    async start() {
      stopped = false;
      timer = setInterval(() => void runOnce(), pollMs);
      timer.unref();
      void runOnce();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
