import { openDiscrepancies } from '../ledger/index.ts';
import type { Queues } from '../queues/index.ts';
import { readCredentialFailure } from '../service-state/index.ts';
import { listAlerts } from './alert.repository.ts';
import { raiseAlert, resolveAlertsByKey, type AlertDependencies } from './raise-alert.ts';

/**
 * Conditions read from durable state rather than raised by the code that saw them, so any
 * process that records them (a worker pausing on 401, BullMQ failing a job for good) alerts
 * once, and the alert resolves by itself when the state clears:
 * - `upstream_auth_failed`: the service refused our credentials (the 401 pause);
 * - `dead_jobs`: jobs that failed for good on any queue (needs `queues`);
 * - alerts raised for a discrepancy (a stuck transfer, a drift) resolve when the ledger
 *   resolves that discrepancy (the transfer settled, the drift is gone).
 */
export async function watchConditions(
  deps: AlertDependencies,
  queues: Queues | undefined,
): Promise<void> {
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

  await resolveSettledDiscrepancies(deps);

  if (!queues) return;
  const named = [
    ['ingest', queues.ingest],
    ['sync', queues.sync],
    ['follow-up', queues.followUp],
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
