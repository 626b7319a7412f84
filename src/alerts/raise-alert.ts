import { sql, type Kysely } from 'kysely';
import { dialectOfDb, type Database, type Executor } from '../db/index.ts';
import { DEFAULT_SEVERITY, type AlertKind, type Severity } from './alert-kind.ts';
import { hintFor, type AlertEvent, type AlertMessage } from './alert-message.ts';
import { sinksFor } from './alert-routing.ts';
import type { AlertRuntime } from './alert-runtime.ts';
import {
  deliveriesOf,
  findLiveAlert,
  insertDeliveries,
  toAlert,
  type Alert,
} from './alert.repository.ts';
import { maskDeep, maskNumbersInText } from './mask-number.ts';
import type { SinkName } from './sinks/alert-sink.ts';
import { alertRaisedEvent, emitRelayEvents, notifyRelay } from '../relay/index.ts';

/** What raising and resolving alerts needs. */
export interface AlertDependencies {
  readonly db: Kysely<Database>;
  readonly alerts: AlertRuntime;
}

/**
 * A condition that became true. Other components raise theirs with this shape: the kind, the
 * subject (a resource id for `paysync show`), a one-line title and the facts in `detail`.
 */
export interface RaiseAlertInput {
  readonly kind: AlertKind;
  /** @defaultValue the kind's default (see `DEFAULT_SEVERITY`) */
  readonly severity?: Severity;
  /** One live alert per key. @defaultValue `<kind>:<subject>`, or the kind alone */
  readonly dedupeKey?: string;
  /** The resource the alert is about (`tr_…`, `pi_…`), shown as `paysync show <subject>`. */
  readonly subject?: string;
  /** One line. Numbers in it are masked. */
  readonly title: string;
  /** A few lines. @defaultValue the title */
  readonly body?: string;
  /** The facts behind the title; strings are masked. Digests group by `detail.group` when set. */
  readonly detail?: Readonly<Record<string, unknown>>;
  /** When the alert clears by itself, said in the body: "when the transfer settles". */
  readonly resolvesWhen?: string;
}

/** What became of a raise. */
export type RaiseOutcome =
  /** A new alert, sent to its sinks. */
  | 'notified'
  /** A new alert, held for the digest of its burst. */
  | 'digested'
  /** A new alert, but its key notified within the dedupe window: recorded, not sent. */
  | 'deduplicated'
  /** The condition was already known: the live alert counts one more occurrence. */
  | 'already_open';

export interface RaisedAlert {
  readonly alert: Alert;
  readonly outcome: RaiseOutcome;
}

/** The message one alert sends for an event. */
export function messageFor(alert: Alert, event: AlertEvent, at: string): AlertMessage {
  return {
    event,
    alertId: alert.id,
    kind: alert.kind,
    severity: alert.severity,
    title: alert.title,
    body: alert.body,
    hint: hintFor(alert.subject, alert.id),
    subject: alert.subject,
    detail: alert.detail,
    at,
  };
}

/** The sinks an alert goes to: the routing, except that a failing sink is reported elsewhere. */
export function sinksOf(
  runtime: AlertRuntime,
  kind: AlertKind,
  severity: Severity,
  detail: Readonly<Record<string, unknown>>,
): SinkName[] {
  const configured = [...runtime.sinks.keys()];
  if (kind === 'sink_failing') return configured.filter((sink) => sink !== detail.sink);
  return sinksFor(runtime.routing, kind, severity, configured);
}

/**
 * Serialises raises of one kind, so the digest count is exact even with many workers:
 * PostgreSQL takes an advisory lock for the transaction; SQLite runs one write transaction
 * at a time anyway.
 */
async function lockKind(trx: Executor, kind: string): Promise<void> {
  if (dialectOfDb(trx) === 'postgres') {
    await sql`select pg_advisory_xact_lock(hashtext(${`paysync-alerts:${kind}`}))`.execute(trx);
  }
}

/**
 * Raises an alert when its condition becomes true. A condition already live (same dedupe
 * key, open or acknowledged) is not raised again: it counts one more occurrence. The alert
 * and its pending deliveries are written in one transaction; the deliverer sends them.
 * Titles, bodies and details are masked: no full phone or account number leaves here.
 */
export async function raiseAlert(
  deps: AlertDependencies,
  input: RaiseAlertInput,
): Promise<RaisedAlert> {
  const raised = await raiseAlertClaiming(deps, input, async () => true);
  if (!raised) throw new Error('an alert raised without a claim was not raised');
  return raised;
}

/**
 * {@link raiseAlert}, with `claim` run first in the alert's own transaction: when it answers
 * false (the work was already done elsewhere, e.g. its outbox row is consumed) nothing is
 * raised and this returns undefined; when the transaction fails, the claim rolls back with the
 * alert, so a consumer's stamp and its alert commit together or not at all.
 */
export async function raiseAlertClaiming(
  deps: AlertDependencies,
  input: RaiseAlertInput,
  claim: (trx: Executor) => Promise<boolean>,
): Promise<RaisedAlert | undefined> {
  const { alerts: runtime } = deps;
  const now = runtime.now();
  const at = now.toISOString();
  const severity = input.severity ?? DEFAULT_SEVERITY[input.kind];
  const dedupeKey =
    input.dedupeKey ?? (input.subject ? `${input.kind}:${input.subject}` : input.kind);
  const title = maskNumbersInText(input.title.split('\n')[0]!);
  const bodyText = [
    input.body ?? input.title,
    input.resolvesWhen ? `Resolves by itself ${input.resolvesWhen}.` : undefined,
  ]
    .filter(Boolean)
    .join('\n');
  const body = maskNumbersInText(bodyText);
  const detail = maskDeep({ ...(input.detail ?? {}) });

  const result = await deps.db.transaction().execute(async (trx) => {
    if (!(await claim(trx))) return undefined;
    await lockKind(trx, input.kind);
    const live = await findLiveAlert(trx, dedupeKey);
    if (live) {
      await trx
        .updateTable('alerts')
        .set({ last_seen_at: at, occurrences: live.occurrences + 1 })
        .where('id', '=', live.id)
        .execute();
      return {
        alert: { ...live, lastSeenAt: at, occurrences: live.occurrences + 1 },
        outcome: 'already_open' as const,
      };
    }
    const since = (ms: number) => new Date(now.getTime() - ms).toISOString();
    const recentlyNotified = await trx
      .selectFrom('alerts')
      .select('id')
      .where('dedupe_key', '=', dedupeKey)
      .where('notified_at', '>', since(runtime.pacing.dedupeWindowMs))
      .executeTakeFirst();
    const inWindow = await trx
      .selectFrom('alerts')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('kind', '=', input.kind)
      .where('created_at', '>', since(runtime.pacing.digestWindowMs))
      .executeTakeFirstOrThrow();
    // This alert is the (count + 1)th of its kind in the window.
    const burst =
      Number(inWindow.count) + 1 > runtime.pacing.digestThreshold && input.kind !== 'test';
    const outcome: RaiseOutcome = recentlyNotified
      ? 'deduplicated'
      : burst
        ? 'digested'
        : 'notified';
    const inserted = await trx
      .insertInto('alerts')
      .values({
        kind: input.kind,
        severity,
        dedupe_key: dedupeKey,
        open_key: dedupeKey,
        subject: input.subject ?? null,
        title,
        body,
        detail: JSON.stringify(detail),
        status: 'open',
        digested: outcome === 'digested' ? 1 : 0,
        occurrences: 1,
        created_at: at,
        last_seen_at: at,
        // A deduplicated alert counts as told: the earlier message covered it.
        notified_at: outcome === 'digested' ? null : at,
        acked_at: null,
        ack_note: null,
        snoozed_until: null,
        resolved_at: null,
        resolved_by: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const alert = toAlert(inserted);
    // The relay's event commits with the alert (docs/relay.md): masked as the alert is.
    const emitted = await emitRelayEvents(
      trx,
      [
        alertRaisedEvent(runtime.environment, {
          alertId: alert.id,
          kind: alert.kind,
          severity: alert.severity,
          title: alert.title,
          body: alert.body,
          subject: alert.subject,
          raisedAt: at,
        }),
      ],
      at,
    );
    if (outcome === 'notified') {
      await insertDeliveries(
        trx,
        messageFor(alert, 'firing', at),
        sinksOf(runtime, alert.kind, severity, detail),
        at,
      );
    } else if (outcome === 'deduplicated') {
      // The people were told within the window; the log still records the recurrence.
      await insertDeliveries(trx, messageFor(alert, 'firing', at), ['log'], at);
    } else if (outcome === 'digested') {
      await openDigest(trx, input.kind, now, runtime.pacing.digestWindowMs);
    }
    return { alert, outcome, relayed: emitted.deliveries > 0 };
  });
  if (!result) return undefined;
  if (result.relayed) notifyRelay();
  if (result.outcome === 'notified' || result.outcome === 'deduplicated') runtime.wake();
  if (result.outcome !== 'already_open') {
    runtime.logger.debug(
      { alertId: result.alert.id, kind: input.kind, outcome: result.outcome },
      'alert raised',
    );
  }
  return { alert: result.alert, outcome: result.outcome };
}

/**
 * Makes sure a digest collects the burst of `kind`. It covers the window since the burst's
 * first alert (those already sent on their own included, so it lists the whole burst) and is
 * sent when that window ends.
 */
async function openDigest(trx: Executor, kind: string, now: Date, windowMs: number): Promise<void> {
  const collecting = await trx
    .selectFrom('alert_digests')
    .select('id')
    .where('open_key', '=', kind)
    .executeTakeFirst();
  if (collecting) return;
  const lastSent = await trx
    .selectFrom('alert_digests')
    .select('due_at')
    .where('kind', '=', kind)
    .orderBy('due_at', 'desc')
    .executeTakeFirst();
  const windowFloor = new Date(now.getTime() - windowMs).toISOString();
  const floor = lastSent && lastSent.due_at > windowFloor ? lastSent.due_at : windowFloor;
  const first = await trx
    .selectFrom('alerts')
    .select((eb) => eb.fn.min('created_at').as('first'))
    .where('kind', '=', kind)
    .where('created_at', '>=', floor)
    .executeTakeFirst();
  const windowStart = (first?.first as string | null) ?? now.toISOString();
  const dueAt = new Date(
    Math.max(new Date(windowStart).getTime() + windowMs, now.getTime()),
  ).toISOString();
  await trx
    .insertInto('alert_digests')
    .values({
      kind,
      open_key: kind,
      window_start: windowStart,
      due_at: dueAt,
      status: 'collecting',
      alert_count: 0,
      created_at: now.toISOString(),
      sent_at: null,
    })
    .onConflict((oc) => oc.column('open_key').doNothing())
    .execute();
}

/** Queues a "resolved" message to every sink that was told about the alert and takes one. */
async function queueResolvedMessages(
  trx: Executor,
  runtime: AlertRuntime,
  alert: Alert,
  at: string,
): Promise<void> {
  const told = new Set(
    (await deliveriesOf(trx, alert.id))
      .filter((delivery) => delivery.event === 'firing' || delivery.event === 'reminder')
      .map((delivery) => delivery.sink),
  );
  const sinks = [...told].filter((sink) => runtime.sinks.get(sink as SinkName)?.takesResolved);
  await insertDeliveries(trx, messageFor(alert, 'resolved', at), sinks, at);
}

async function closeAlert(
  deps: AlertDependencies,
  alert: Alert,
  by: 'condition' | 'operator',
  note?: string,
): Promise<Alert | undefined> {
  const at = deps.alerts.now().toISOString();
  const closed = await deps.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('alerts')
      .set({
        status: 'resolved',
        open_key: null,
        resolved_at: at,
        resolved_by: by,
        ...(note !== undefined ? { ack_note: note } : {}),
      })
      .where('id', '=', alert.id)
      .where('status', '!=', 'resolved')
      .returningAll()
      .executeTakeFirst();
    if (!updated) return undefined;
    const resolved = toAlert(updated);
    await queueResolvedMessages(trx, deps.alerts, resolved, at);
    return resolved;
  });
  if (closed) deps.alerts.wake();
  return closed;
}

/**
 * The condition behind `dedupeKey` cleared (the stuck transfer settled, the credentials work
 * again): its live alert resolves and the sinks that were told get a "resolved" message.
 * Returns the resolved alert, or undefined when none was live.
 */
export async function resolveAlertsByKey(
  deps: AlertDependencies,
  dedupeKey: string,
): Promise<Alert | undefined> {
  const live = await findLiveAlert(deps.db, dedupeKey);
  return live ? closeAlert(deps, live, 'condition') : undefined;
}

/** Refused operator actions: unknown id, or an alert already resolved. */
export class AlertActionError extends Error {
  override readonly name = 'AlertActionError';
  constructor(
    readonly code: 'unknown_alert' | 'already_resolved',
    message: string,
  ) {
    super(message);
  }
}

async function liveAlertById(db: Executor, id: number, action: string): Promise<Alert> {
  const row = await db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) {
    throw new AlertActionError(
      'unknown_alert',
      `no alert ${id}: see \`paysync alerts list\` for the ids`,
    );
  }
  const alert = toAlert(row);
  if (alert.status === 'resolved') {
    throw new AlertActionError(
      'already_resolved',
      `alert ${id} was resolved at ${alert.resolvedAt} (by ${alert.resolvedBy}); nothing to ${action}`,
    );
  }
  return alert;
}

/** An operator resolves an alert by hand. */
export async function resolveAlert(
  deps: AlertDependencies,
  id: number,
  note?: string,
): Promise<Alert> {
  const alert = await liveAlertById(deps.db, id, 'resolve');
  return (await closeAlert(deps, alert, 'operator', note)) ?? alert;
}

/**
 * An operator acknowledges an alert: no more reminders. With `forMs` it is a snooze: when it
 * ends and the alert is still live, the alert reopens and notifies again.
 */
export async function ackAlert(
  deps: AlertDependencies,
  id: number,
  options: { readonly note?: string; readonly forMs?: number } = {},
): Promise<Alert> {
  await liveAlertById(deps.db, id, 'acknowledge');
  const now = deps.alerts.now();
  const updated = await deps.db
    .updateTable('alerts')
    .set({
      status: 'acked',
      acked_at: now.toISOString(),
      ack_note: options.note ?? null,
      snoozed_until:
        options.forMs !== undefined ? new Date(now.getTime() + options.forMs).toISOString() : null,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAlert(updated);
}
