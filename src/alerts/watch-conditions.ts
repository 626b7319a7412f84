import { openDiscrepancies } from '../ledger/index.ts';
import { latestSnapshots } from '../balances/index.ts';
import { storedVerdicts } from '../reports/index.ts';
import type { Queues } from '../queues/index.ts';
import { readCredentialFailure } from '../service-state/index.ts';
import { listAlerts } from './alert.repository.ts';
import { raiseAlert, resolveAlertsByKey, type AlertDependencies } from './raise-alert.ts';
import { watchWebhookConditions } from './inbox-alerts.ts';
import { watchOverdueExpectations } from './expectation-alerts.ts';
import { balanceDriftAlert, dayNotReconciledAlert } from './state-alerts.ts';

/**
 * Conditions read from durable state rather than raised by the code that saw them, so any
 * process that records them (a worker pausing on 401, BullMQ failing a job for good) alerts
 * once, and the alert resolves by itself when the state clears:
 * - `upstream_auth_failed`: the service refused our credentials (the 401 pause);
 * - `dead_jobs`: jobs that failed for good on any queue (needs `queues`);
 * - `balance_drift`: an open `balance_drift` discrepancy (balances records and resolves them);
 * - `low_balance` (raised by balances through the outbox) resolves when a newer snapshot of
 *   the account is back at or above its minimum;
 * - `day_not_reconciled`: a stored daily verdict of `BREAKS` or `INCOMPLETE` (last 7 days);
 * - alerts raised for a discrepancy (a stuck transfer, a drift) resolve when the ledger
 *   resolves that discrepancy (the transfer settled, the drift is gone);
 * - `signature_failures`, `unclassified_events`, `webhooks_silent`: see watchWebhookConditions;
 * - `expectation_overdue`: one per overdue expectation, resolved once it is no longer overdue
 *   (see watchOverdueExpectations).
 */
export interface WatchedState {
  /** The queues whose failed jobs raise `dead_jobs`. */
  readonly queues?: Queues;
  /** The environment whose daily verdicts raise `day_not_reconciled`. */
  readonly environment?: string;
}

export async function watchConditions(
  deps: AlertDependencies,
  state: WatchedState = {},
): Promise<void> {
  const { queues } = state;
  const failure = await readCredentialFailure(deps.db);
  if (failure) {
    await raiseAlert(deps, {
      kind: 'upstream_auth_failed',
      dedupeKey: 'upstream_auth_failed',
      title: `The payment service refused paysync's credentials (${failure.reason}): syncing is paused`,
      body: [
        `The service answered ${failure.reason} to ${failure.operation} at ${failure.at}.`,
        'Every worker stopped calling the service; webhooks are still received and kept.',
        'Check PAYSYNC_API_KEY and PAYSYNC_MERCHANT_ID (`paysync doctor`), then restart the workers.',
      ].join('\n'),
      detail: { reason: failure.reason, operation: failure.operation, since: failure.at },
      resolvesWhen: 'when a call with the credentials succeeds again',
    });
  } else {
    await resolveAlertsByKey(deps, 'upstream_auth_failed');
  }

  await raiseBalanceDrift(deps);
  await resolveRecoveredBalances(deps);
  if (state.environment) await watchVerdicts(deps, state.environment);
  if (state.environment) await watchOverdueExpectations(deps, state.environment);
  await resolveSettledDiscrepancies(deps);
  await watchWebhookConditions(deps);

  if (!queues) return;
  const named = [
    ['ingest', queues.ingest],
    ['sync', queues.sync],
    ['follow-up', queues.followUp],
    ['receipts', queues.receipts],
    ['scheduled', queues.scheduled],
  ] as const;
  const counts: Record<string, number> = {};
  let total = 0;
  for (const [name, queue] of named) {
    const failed = (await queue.getJobCounts('failed')).failed ?? 0;
    if (failed > 0) counts[name] = failed;
    total += failed;
  }
  if (total > 0) {
    const where = Object.entries(counts)
      .map(([name, count]) => `${name}: ${count}`)
      .join(', ');
    await raiseAlert(deps, {
      kind: 'dead_jobs',
      dedupeKey: 'dead_jobs',
      title: `${total} ${total === 1 ? 'job' : 'jobs'} failed for good (${where})`,
      body: [
        `${total} BullMQ ${total === 1 ? 'job has' : 'jobs have'} used every retry (${where}); nothing retries them now.`,
        'The worker log says why ("job failed for good"). Once the cause is fixed, `paysync replay --since <time>` runs the events again.',
      ].join('\n'),
      detail: { failed: counts, total },
      resolvesWhen: 'when no failed job is left (retried or removed)',
    });
  } else {
    await resolveAlertsByKey(deps, 'dead_jobs');
  }
}

async function resolveSettledDiscrepancies(deps: AlertDependencies): Promise<void> {
  const live = (await listAlerts(deps.db, { open: true, limit: 1000 })).filter(
    (alert) => typeof alert.detail.discrepancyId === 'number',
  );
  if (live.length === 0) return;
  const open = new Set((await openDiscrepancies(deps.db, { limit: 100_000 })).map((d) => d.id));
  for (const alert of live) {
    if (!open.has(alert.detail.discrepancyId as number)) {
      await resolveAlertsByKey(deps, alert.dedupeKey);
    }
  }
}

/** One alert per open drift; it resolves with the discrepancy when the drift is explained. */
async function raiseBalanceDrift(deps: AlertDependencies): Promise<void> {
  const drifts = (await openDiscrepancies(deps.db, { limit: 1000 })).filter(
    (d) => d.kind === 'balance_drift',
  );
  for (const drift of drifts) {
    await raiseAlert(
      deps,
      balanceDriftAlert(drift.id, drift.detail, drift.resourceId ?? 'an account'),
    );
  }
}

const NOT_RECONCILED = new Set(['BREAKS', 'INCOMPLETE']);

/** A closed day whose stored verdict is not reconciled alerts once; a later good verdict resolves it. */
async function watchVerdicts(deps: AlertDependencies, environment: string): Promise<void> {
  for (const stored of await storedVerdicts(deps.db, environment, { limit: 7 })) {
    if (!NOT_RECONCILED.has(stored.verdict)) {
      await resolveAlertsByKey(deps, `day_not_reconciled:${environment}:${stored.day}`);
      continue;
    }
    await raiseAlert(
      deps,
      dayNotReconciledAlert(
        environment,
        stored.day,
        stored.verdict,
        stored.report.breaks.map((line) => line.line),
        stored.report.incomplete,
      ),
    );
  }
}

/** A low-balance alert resolves once the newest snapshot of its account is back up. */
async function resolveRecoveredBalances(deps: AlertDependencies): Promise<void> {
  const live = (await listAlerts(deps.db, { open: true, limit: 1000 })).filter(
    (alert) => alert.kind === 'low_balance',
  );
  for (const alert of live) {
    const { environment, accountType, currency, minimum } = alert.detail;
    if (typeof environment !== 'string' || typeof minimum !== 'number') continue;
    const latest = (await latestSnapshots(deps.db, environment)).find(
      (b) => b.accountType === accountType && b.currency === currency,
    );
    // Only a snapshot taken after the crossing can say it is over.
    if (latest && latest.amount >= minimum && latest.asOf > String(alert.detail.asOf ?? '')) {
      await resolveAlertsByKey(deps, alert.dedupeKey);
    }
  }
}
