import { openDiscrepancies } from '../ledger/index.ts';
import { formatAmount } from '../money/index.ts';
import { storedVerdicts } from '../reports/index.ts';
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
 * - `balance_drift`: an open `balance_drift` discrepancy (balances records and resolves them);
 * - `day_not_reconciled`: a stored daily verdict of `BREAKS` or `INCOMPLETE` (last 7 days);
 * - alerts raised for a discrepancy (a stuck transfer, a drift) resolve when the ledger
 *   resolves that discrepancy (the transfer settled, the drift is gone).
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
  if (state.environment) await watchVerdicts(deps, state.environment);
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

/** One alert per open drift; it resolves with the discrepancy when the drift is explained. */
async function raiseBalanceDrift(deps: AlertDependencies): Promise<void> {
  const drifts = (await openDiscrepancies(deps.db, { limit: 1000 })).filter(
    (d) => d.kind === 'balance_drift',
  );
  for (const drift of drifts) {
    const facts = drift.detail;
    const currency = typeof facts.currency === 'string' ? facts.currency : '';
    const money = (value: unknown) =>
      typeof value === 'number' && currency !== '' ? formatAmount(value, currency) : String(value);
    const account = String(facts.account ?? facts.accountType ?? drift.resourceId ?? 'an account');
    await raiseAlert(deps, {
      kind: 'balance_drift',
      dedupeKey: `balance_drift:${drift.id}`,
      title:
        `Balance drift on ${account} ${currency}: ${money(facts.amount ?? facts.difference)} unexplained`.trim(),
      body: [
        `The service says ${money(facts.service)}, the ledger ${money(facts.ledger)} (difference ${money(facts.difference)}) as of ${String(facts.asOf ?? drift.createdAt)}.`,
        `${money(facts.amount)} of it is not explained by items in flight or recent adjustments.`,
        'See `paysync balances` for the explanation of every difference.',
      ].join('\n'),
      detail: { ...facts, discrepancyId: drift.id, group: account },
      resolvesWhen: 'when the difference is explained or gone',
    });
  }
}

const NOT_RECONCILED = new Set(['BREAKS', 'INCOMPLETE']);

/** A closed day whose stored verdict is not reconciled alerts once; a later good verdict resolves it. */
async function watchVerdicts(deps: AlertDependencies, environment: string): Promise<void> {
  for (const stored of await storedVerdicts(deps.db, environment, { limit: 7 })) {
    const key = `day_not_reconciled:${environment}:${stored.day}`;
    if (!NOT_RECONCILED.has(stored.verdict)) {
      await resolveAlertsByKey(deps, key);
      continue;
    }
    const breaks = stored.report.breaks.length;
    const reasons =
      stored.verdict === 'BREAKS'
        ? `${breaks} ${breaks === 1 ? 'break' : 'breaks'}`
        : stored.report.incomplete.join('; ');
    await raiseAlert(deps, {
      kind: 'day_not_reconciled',
      dedupeKey: key,
      title: `${stored.day} is not reconciled: ${stored.verdict} (${reasons})`,
      body: [
        `The books of ${stored.day} (${stored.report.timeZone}) came out ${stored.verdict}: ${reasons}.`,
        ...stored.report.breaks.slice(0, 5).map((line) => `• ${line.line}`),
        `See \`paysync report --date ${stored.day}\`.`,
      ].join('\n'),
      detail: {
        environment,
        day: stored.day,
        verdict: stored.verdict,
        breaks,
        group: stored.verdict,
      },
      resolvesWhen: 'when the day is computed again and reconciles',
    });
  }
}
