import type { Executor } from '../db/index.ts';

/** What an alert about one endpoint says (no secret, no query string of the URL). */
export interface EndpointHealthFacts {
  /** The public id (`ep_…`). */
  readonly endpointId: string;
  /** Scheme, host and path of the URL: a query string or user info may hold a token. */
  readonly url: string;
  /** Start of the current run of failures; null once it succeeds again. */
  readonly failingSince: string | null;
  /** Why it is disabled or failing, in one line. */
  readonly reason: string;
}

/**
 * Who hears about an endpoint's health: the daemon passes the alerts component's
 * `relayEndpointAlerts` (alerts `relay_endpoint_failing` and `relay_endpoint_disabled`, both
 * resolved by `recovered`). The relay does not import the alerts: it sits below them.
 */
export interface EndpointHealthListener {
  /** Failing longer than `failingAlertAfterMs`; called once per process and run of failures. */
  failing(facts: EndpointHealthFacts): Promise<unknown>;
  /** Disabled by a 410 or by failing longer than `disableAfterMs`. */
  disabled(facts: EndpointHealthFacts): Promise<unknown>;
  /** A delivery succeeded after failures (or after it was enabled again). */
  recovered(facts: EndpointHealthFacts): Promise<unknown>;
}

/** The URL as alerts and logs may show it: no user info, no query, no fragment. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

function duration(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours >= 48) return `${Math.round(hours / 24)} days`;
  if (hours >= 1) return `${Math.round(hours * 10) / 10} h`;
  return `${Math.round(ms / 60_000)} min`;
}

/**
 * Disables `endpoint` when it is still enabled; true when this call disabled it. Its pending
 * deliveries stay pending and wait (docs/relay.md, "Disabling").
 */
export async function disableFailingEndpoint(
  db: Executor,
  endpointRowId: number,
  reason: string,
  at: Date,
  /** Only while this run of failures goes on (a success in between clears it). */
  failingSince?: string,
): Promise<boolean> {
  let update = db
    .updateTable('relay_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: at.toISOString() })
    .where('id', '=', endpointRowId)
    .where('status', '=', 'enabled');
  if (failingSince !== undefined) update = update.where('failing_since', '=', failingSince);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface HealthThresholds {
  readonly failingAlertAfterMs: number;
  readonly disableAfterMs: number;
}

/** What one process has told its listener, so it tells each thing once. */
export interface ToldHealth {
  /** Per endpoint row id, the run of failures (its `failing_since`) told as failing. */
  readonly failing: Map<number, string>;
  /** Endpoints told failing or disabled and not told recovered since. */
  readonly unwell: Set<number>;
}

/**
 * Reads the enabled endpoints that have been failing long enough to matter (one query on the
 * small endpoints table): disables those failing longer than `disableAfterMs`, and tells
 * `listener` once about those failing longer than `failingAlertAfterMs`. An endpoint this
 * process told about that is enabled and no longer failing (a success raced the alert, or
 * another process delivered) is told recovered.
 */
export async function checkEndpointHealth(
  db: Executor,
  listener: EndpointHealthListener,
  thresholds: HealthThresholds,
  now: Date,
  told: ToldHealth,
): Promise<void> {
  if (told.unwell.size > 0) {
    const recovered = await db
      .selectFrom('relay_endpoints')
      .select(['id', 'endpoint_id', 'url'])
      .where('id', 'in', [...told.unwell])
      .where('status', '=', 'enabled')
      .where('failing_since', 'is', null)
      .execute();
    for (const endpoint of recovered) {
      told.unwell.delete(endpoint.id);
      told.failing.delete(endpoint.id);
      await listener.recovered({
        endpointId: endpoint.endpoint_id,
        url: shownUrl(endpoint.url),
        failingSince: null,
        reason: 'it is enabled and its last delivery succeeded',
      });
    }
  }
  const alertBefore = new Date(now.getTime() - thresholds.failingAlertAfterMs).toISOString();
  const failing = await db
    .selectFrom('relay_endpoints')
    .select(['id', 'endpoint_id', 'url', 'failing_since', 'updated_at'])
    .where('status', '=', 'enabled')
    .where('failing_since', 'is not', null)
    .where('failing_since', '<=', alertBefore)
    .execute();
  for (const endpoint of failing) {
    const since = endpoint.failing_since!;
    // Failing counts from the last change of the endpoint too: one enabled again (or whose URL
    // was fixed) gets a fresh period before it is alerted about or disabled again.
    const counted = Math.max(Date.parse(since), Date.parse(endpoint.updated_at));
    const failingMs = now.getTime() - counted;
    if (failingMs < thresholds.failingAlertAfterMs) continue;
    const facts = (reason: string): EndpointHealthFacts => ({
      endpointId: endpoint.endpoint_id,
      url: shownUrl(endpoint.url),
      failingSince: since,
      reason,
    });
    if (failingMs >= thresholds.disableAfterMs) {
      const reason = `every delivery failed for ${duration(failingMs)} (since ${since}), longer than PAYSYNC_RELAY_DISABLE_AFTER`;
      if (await disableFailingEndpoint(db, endpoint.id, reason, now, since)) {
        told.unwell.add(endpoint.id);
        await listener.disabled(facts(reason));
      }
      continue;
    }
    if (told.failing.get(endpoint.id) === since) continue;
    told.failing.set(endpoint.id, since);
    told.unwell.add(endpoint.id);
    await listener.failing(facts(`every delivery failed for ${duration(failingMs)}`));
  }
}
