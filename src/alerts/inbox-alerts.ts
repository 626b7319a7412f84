import { inboxLiveness } from '../inbox/index.ts';
import { missedWebhooksSince } from '../runs/index.ts';
import { signatureFailuresBetween } from '../service-state/index.ts';
import { raiseAlert, resolveAlertsByKey, type AlertDependencies } from './raise-alert.ts';

/**
 * The webhook-side conditions, read from durable state by the watcher:
 * - `signature_failures`: more than N signatures refused (401) within M minutes, counted per
 *   minute in `service_state` by the receiver (it leaves no inbox row);
 * - `unclassified_events`: inbox rows the ingest could not classify;
 * - `webhooks_silent`: no webhook for the silence window while sweeps found items no webhook
 *   named: the dead-man alert. It resolves when a webhook arrives again.
 */
export async function watchWebhookConditions(deps: AlertDependencies): Promise<void> {
  const now = deps.alerts.now();
  const pacing = deps.alerts.pacing;
  await watchSignatureFailures(
    deps,
    now,
    pacing.signatureFailureThreshold,
    pacing.signatureFailureWindowMs,
  );
  const liveness = await inboxLiveness(deps.db);
  await watchUnclassified(deps, liveness.unclassified);
  await watchSilence(deps, now, liveness.lastReceivedAt, pacing.webhookSilenceMs);
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return `${m} ${m === 1 ? 'minute' : 'minutes'}`;
}

async function watchSignatureFailures(
  deps: AlertDependencies,
  now: Date,
  threshold: number,
  windowMs: number,
): Promise<void> {
  const refused = await signatureFailuresBetween(deps.db, new Date(now.getTime() - windowMs), now);
  if (refused <= threshold) {
    await resolveAlertsByKey(deps, 'signature_failures');
    return;
  }
  await raiseAlert(deps, {
    kind: 'signature_failures',
    dedupeKey: 'signature_failures',
    title: `${refused} webhook signatures refused in the last ${minutes(windowMs)}: was the webhook secret rotated?`,
    body: [
      `The receiver answered 401 to ${refused} webhooks in the last ${minutes(windowMs)} (more than ${threshold}); nothing from them was stored.`,
      'This usually means the signing secret changed on the service: set the new one in PAYSYNC_WEBHOOK_SECRET and restart the receiver.',
      'The receiver log says why each was refused; the sweeps keep the books in step meanwhile.',
    ].join('\n'),
    detail: { refused, threshold, windowMinutes: windowMs / 60_000 },
    resolvesWhen: `when no more than ${threshold} are refused within ${minutes(windowMs)}`,
  });
}

async function watchUnclassified(deps: AlertDependencies, count: number): Promise<void> {
  if (count === 0) {
    await resolveAlertsByKey(deps, 'unclassified_events');
    return;
  }
  await raiseAlert(deps, {
    kind: 'unclassified_events',
    dedupeKey: 'unclassified_events',
    title: `${count} webhook ${count === 1 ? 'event' : 'events'} not understood (unclassified)`,
    body: [
      `${count} inbox ${count === 1 ? 'row is' : 'rows are'} \`unclassified\`: paysync could not tell what resource or change they describe, so nothing was booked from them.`,
      'They are kept with their raw body. Once paysync understands them, `paysync replay --since <time>` runs them again.',
    ].join('\n'),
    detail: { unclassified: count },
    resolvesWhen: 'when no inbox row is unclassified',
  });
}

async function watchSilence(
  deps: AlertDependencies,
  now: Date,
  lastReceivedAt: string | null,
  silenceMs: number,
): Promise<void> {
  const since = new Date(now.getTime() - silenceMs).toISOString();
  if (lastReceivedAt !== null && lastReceivedAt >= since) {
    await resolveAlertsByKey(deps, 'webhooks_silent');
    return;
  }
  // Silence alone may be a quiet hour; silence while sweeps find new items is a broken feed.
  const missed = await missedWebhooksSince(deps.db, since);
  if (missed === 0) return;
  await raiseAlert(deps, {
    kind: 'webhooks_silent',
    dedupeKey: 'webhooks_silent',
    title: `No webhook received for ${minutes(silenceMs)} while sweeps found ${missed} new ${missed === 1 ? 'item' : 'items'}`,
    body: [
      `The last webhook arrived ${lastReceivedAt === null ? 'never' : `at ${lastReceivedAt}`}; since ${since} the sweeps found ${missed} ${missed === 1 ? 'item' : 'items'} no webhook named.`,
      'The webhook registration may have been deleted, or the service stopped delivering: check it on the service and `paysync doctor`.',
      'The sweeps keep the books in step meanwhile, later than webhooks would.',
    ].join('\n'),
    detail: { lastReceivedAt, missed, silenceMinutes: silenceMs / 60_000 },
    resolvesWhen: 'when a webhook arrives',
  });
}
