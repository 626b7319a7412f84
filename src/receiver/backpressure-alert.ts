import type { Kysely } from 'kysely';
import { raiseAlert, resolveAlertsByKey, type AlertRuntime } from '../alerts/index.ts';
import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { reasonOf } from '../error-reason.ts';
import type { BacklogGateOptions } from './backlog-gate.ts';

const KEY = 'webhook_backlog_full';

/**
 * The alert resolves once the backlog has stayed under this share of the limit for
 * {@link DEFAULT_CALM_MS}, not as soon as intake resumes: the sender's retries come back in a
 * wave the moment it does, fill the inbox again, and stop intake again.
 */
export const ALERT_RESOLVES_UNDER_SHARE = 0.5;
/** How long the backlog stays under the bar before the alert resolves. */
export const DEFAULT_CALM_MS = 60_000;

/**
 * The backlog gate's callbacks that tell people: `webhook_backlog_full` is raised when intake
 * stops (one live alert per key, however many receivers see it; a second stop while it is live
 * counts one more occurrence) and resolved once the backlog has stayed under half the limit for
 * a minute: intake stopping and resuming as the retries come back in waves is one episode, one
 * alert. A receiver that starts under the bar resolves one left open by a receiver that stopped
 * while full. A
 * failure to write the alert is logged, never thrown: the 503s and the metric go on regardless.
 */
export function backpressureAlerts(deps: {
  readonly db: Kysely<Database>;
  readonly alerts: AlertRuntime;
  readonly maxBacklog: number;
  readonly logger: Logger;
  /** @defaultValue {@link DEFAULT_CALM_MS} */
  readonly calmMs?: number;
}): Pick<BacklogGateOptions, 'onFull' | 'onCounted'> {
  const { maxBacklog, logger } = deps;
  const resolveBelow = Math.max(1, Math.floor(maxBacklog * ALERT_RESOLVES_UNDER_SHARE));
  // Unknown at start: the first count under the bar resolves whatever an earlier process left.
  let live = true;
  let calmSince: number | undefined;
  const calmMs = deps.calmMs ?? DEFAULT_CALM_MS;
  const guarded = (what: string, work: () => Promise<unknown>) =>
    work().then(
      () => undefined,
      (error: unknown) =>
        logger.warn({ reason: reasonOf(error) }, `could not ${what} the ${KEY} alert`),
    );
  return {
    onFull: (backlog) => {
      live = true;
      calmSince = undefined;
      return guarded('raise', () =>
        raiseAlert(deps, {
          kind: 'webhook_backlog_full',
          dedupeKey: KEY,
          title: `Webhooks refused with 503: ${backlog} events wait to be processed (limit ${maxBacklog})`,
          body: [
            `The inbox holds ${backlog} events not yet processed, the limit set in PAYSYNC_RECEIVER_MAX_BACKLOG, so the receiver answers 503 with Retry-After to new webhooks without reading them.`,
            'Nothing is lost: the service retries them. The workers are behind: check that they run and are not failing (`paysync doctor`, the queue board, the worker log), or add workers.',
          ].join('\n'),
          detail: { backlog, maxBacklog, resolveBelow },
          resolvesWhen: `when the backlog has stayed under ${resolveBelow} for ${Math.round(calmMs / 1000)} s`,
        }),
      );
    },
    onCounted: (backlog, full) => {
      if (full || backlog >= resolveBelow) calmSince = undefined;
      if (!live || full || backlog >= resolveBelow) return Promise.resolve();
      const now = deps.alerts.now().getTime();
      calmSince ??= now;
      if (now - calmSince < calmMs) return Promise.resolve();
      live = false;
      return guarded('resolve', () => resolveAlertsByKey(deps, KEY));
    },
  };
}
