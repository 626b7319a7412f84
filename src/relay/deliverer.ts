import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Environment, RelaySettings, SecretsKey } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { reasonOf } from '../error-reason.ts';
import type { Clock, Component } from '../lifecycle/index.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { claimDueDeliveries, type ClaimedDelivery } from './claim-deliveries.ts';
import { guardedLookup, hostProblem, type EndpointUrlRules } from './endpoint-url.ts';
import {
  checkEndpointHealth,
  shownUrl,
  type EndpointHealthFacts,
  type EndpointHealthListener,
  type ToldHealth,
} from './endpoint-health.ts';
import { relayMessageBody } from './message-body.ts';
import { postEvent, type PostOptions, type PostResult } from './post-event.ts';
import { recordAttempt } from './record-attempt.ts';
import {
  relayAttemptSeconds,
  relayDeliveriesTotal,
  refreshOldestPending,
} from './relay-metrics.ts';
import { relaySignal } from './relay-signal.ts';
import { openSecret, SecretKeyError } from './secret-box.ts';
import { signedHeaders } from './sign.ts';
import {
  failSpan,
  inSpan,
  itemAttributes,
  contextOfTraceparent,
  SpanKind,
  TRACE_ATTRIBUTES,
  type Span,
} from '../tracing/index.ts';

export interface RelayDelivererDeps {
  readonly db: Kysely<Database>;
  /**
   * `config.relay`: timeout, concurrency, the retry schedule, the SSRF allow-list, the health
   * thresholds.
   */
  readonly settings: RelaySettings;
  /** `live` applies the SSRF guard. */
  readonly environment: Environment;
  readonly logger: Logger;
  /** The clock, resolved where the process is assembled; tests move it. */
  readonly now: Clock;
  /** Told when an endpoint fails too long, is disabled, or recovers (the daemon: alerts). */
  readonly health?: EndpointHealthListener;
  /** How often due deliveries are looked for without a wake-up. @defaultValue 1000 */
  readonly pollMs?: number;
  /** What a lease adds to the timeout, for recording the attempt. @defaultValue 10000 */
  readonly leaseMarginMs?: number;
  /** The retry jitter's random source, [0, 1). @defaultValue Math.random */
  readonly random?: () => number;
  /**
   * The tenant whose relay this is, in a process serving several: named in the delivery spans.
   * @defaultValue none
   */
  readonly tenant?: string;
  /**
   * The tenant's metrics handle: in a process serving several, the relay's series carry the
   * tenant's label. @defaultValue the handle of a process of one tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

export interface RelayDeliverer extends Component {
  /** Looks for due deliveries now (or right after the pass running). */
  wake(): void;
  /** POSTs in flight in this process. */
  inFlight(): number;
}

const DEFAULT_POLL_MS = 1000;
const DEFAULT_LEASE_MARGIN_MS = 10_000;
/** How often the oldest-pending gauge is read (it is a gauge; a second is plenty). */
const GAUGE_EVERY_MS = 5000;

/** The SSRF guard postEvent applies, from the settings and the environment. */
export function deliveryGuard(
  settings: Pick<RelaySettings, 'allowHttp' | 'allowedHosts'>,
  environment: Environment,
): NonNullable<PostOptions['guard']> {
  const rules: EndpointUrlRules = {
    environment,
    allowHttp: settings.allowHttp,
    allowedHosts: settings.allowedHosts,
  };
  return { hostProblem: (host) => hostProblem(host, rules), lookup: guardedLookup(rules) };
}

/**
 * The secrets that sign at `at`: the current one, and the previous one until it expires, opened
 * with PAYSYNC_SECRETS_KEY's keys when sealed (throws SecretKeyError when no key opens one).
 */
export function signingSecrets(
  endpoint: {
    readonly secret: string;
    readonly previousSecret: string | null;
    readonly previousSecretExpiresAt: string | null;
  },
  at: Date,
  keys: readonly SecretsKey[],
): string[] {
  const previousValid =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > at.toISOString();
  const stored = previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  return stored.map((value) => openSecret(value, keys));
}

/**
 * The relay deliverer of a worker process (docs/relay.md): woken by `relaySignal`
 * after a commit that added deliveries and every `pollMs`, it claims due deliveries (a lease in
 * the database, so any number of processes share the work), POSTs each signed with Standard
 * Webhooks, at most `settings.concurrency` at once, and records every attempt. Each poll also
 * checks the endpoints' health (failing too long: alert; much too long: disabled) and, every
 * few seconds, the oldest-pending gauge. `stop()` takes no new work and waits for the POSTs in
 * flight up to the timeout; one cut short keeps its lease until it runs out, then goes again.
 */
export function createRelayDeliverer(deps: RelayDelivererDeps): RelayDeliverer {
  const { db, settings, logger } = deps;
  const metrics = deps.metrics ?? soleTenantMetrics;
  const pollMs = deps.pollMs ?? DEFAULT_POLL_MS;
  const leaseMs = settings.timeoutMs + (deps.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
  const guard = deliveryGuard(settings, deps.environment);
  const inFlight = new Set<Promise<void>>();
  const told: ToldHealth = { failing: new Map(), unwell: new Set() };
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  let claimFailing = false;
  let upkeep: Promise<void> | undefined;
  let gaugeReadAt = -Infinity;
  /** When each endpoint's success was last written (performance.now()). */
  const successWrittenAt = new Map<number, number>();

  const tell = async (what: keyof EndpointHealthListener, facts: EndpointHealthFacts) => {
    if (!deps.health) return;
    try {
      await deps.health[what](facts);
    } catch (error) {
      logger.warn(
        { endpoint: facts.endpointId, reason: reasonOf(error) },
        `relay: cannot raise the ${what} alert`,
      );
    }
  };

  // Each attempt is a span in the trace of the booking that emitted the event, when it was
  // traced (its `traceparent` kept on the event's row), else in a trace of its own
  // (docs/observability.md).
  const deliver = (delivery: ClaimedDelivery) =>
    inSpan(
      'paysync.relay.deliver',
      {
        kind: SpanKind.CLIENT,
        parent: contextOfTraceparent(delivery.traceparent ?? undefined),
        attributes: {
          'paysync.relay.event_type': delivery.event.type,
          'paysync.relay.event_id': delivery.event.event_id,
          'paysync.relay.endpoint': delivery.endpoint.endpointId,
          'paysync.relay.attempt': delivery.attempts + 1,
          ...subjectAttributes(delivery.subject, deps.tenant),
        },
      },
      (span) => deliverNow(delivery, span),
    );

  const deliverNow = async (delivery: ClaimedDelivery, span: Span) => {
    const attemptedAt = deps.now();
    const body = relayMessageBody(delivery.event);
    let secrets: string[] | undefined;
    let keyProblem = '';
    try {
      secrets = signingSecrets(delivery.endpoint, attemptedAt, settings.secretsKeys);
    } catch (error) {
      // A secret no key opens (PAYSYNC_SECRETS_KEY lost a key): an attempt that failed, with
      // why, retried on the schedule, so restoring the key lets the delivery go on.
      if (!(error instanceof SecretKeyError)) throw error;
      keyProblem = error.message;
    }
    const result: PostResult = secrets
      ? await postEvent({
          url: delivery.endpoint.url,
          headers: { ...signedHeaders(secrets, delivery.event.event_id, attemptedAt, body) },
          body,
          timeoutMs: settings.timeoutMs,
          guard,
        })
      : { outcome: 'error', durationMs: 0, error: keyProblem };
    span.setAttribute('paysync.relay.outcome', result.outcome);
    if (result.statusCode !== undefined) {
      span.setAttribute('http.response.status_code', result.statusCode);
    }
    if (result.outcome !== 'delivered') failSpan(span, `relay delivery ${result.outcome}`);
    const endpoint = delivery.endpoint.endpointId;
    metrics.inc(relayDeliveriesTotal, { endpoint, outcome: result.outcome });
    metrics.observe(relayAttemptSeconds, { endpoint }, result.durationMs / 1000);
    const touchEndpoint =
      result.outcome === 'delivered' &&
      (delivery.endpoint.failingSince !== null ||
        performance.now() - (successWrittenAt.get(delivery.endpoint.id) ?? -Infinity) >= 1000);
    if (touchEndpoint) successWrittenAt.set(delivery.endpoint.id, performance.now());
    const recorded = await recordAttempt(db, delivery, result, {
      attemptedAt,
      now: deps.now(),
      touchEndpoint: result.outcome !== 'delivered' || touchEndpoint,
      schedule: settings.retryScheduleMs,
      ...(deps.random ? { random: deps.random } : {}),
    });
    logger.debug(
      {
        endpoint,
        event: delivery.event.event_id,
        attempt: recorded.attempt,
        outcome: result.outcome,
        status: result.statusCode,
        state: recorded.state,
      },
      'relay: attempt recorded',
    );
    const facts = (reason: string): EndpointHealthFacts => ({
      endpointId: endpoint,
      url: shownUrl(delivery.endpoint.url),
      failingSince: recorded.failingSince,
      reason,
    });
    if (recorded.state === 'gave_up') {
      metrics.inc(relayDeliveriesTotal, { endpoint, outcome: 'gave_up' });
      logger.warn(
        { endpoint, event: delivery.event.event_id, attempts: recorded.attempt },
        'relay: delivery gave up after its last attempt; `paysync endpoints redeliver` sends it again',
      );
    }
    if (result.outcome === 'delivered' && delivery.endpoint.failingSince !== null) {
      told.failing.delete(delivery.endpoint.id);
      told.unwell.delete(delivery.endpoint.id);
      await tell('recovered', facts('a delivery succeeded'));
    }
    if (recorded.disabledByGone) {
      logger.warn(
        { endpoint, url: shownUrl(delivery.endpoint.url) },
        'relay: the endpoint answered 410 Gone and is disabled; its deliveries wait until it is enabled',
      );
      told.unwell.add(delivery.endpoint.id);
      await tell('disabled', facts('the endpoint answered 410 Gone'));
    }
  };

  const launch = (delivery: ClaimedDelivery) => {
    const running: Promise<void> = deliver(delivery)
      .catch((error: unknown) => {
        // The lease runs out and the delivery goes again: at least once.
        logger.warn(
          { endpoint: delivery.endpoint.endpointId, reason: reasonOf(error) },
          'relay: cannot record a delivery attempt; it is tried again when its lease ends',
        );
      })
      .finally(() => {
        inFlight.delete(running);
        // Claim in batches: once half the slots are free (one claim query per batch, not per
        // delivery), or at once when the delivery just finished may have unblocked its subject
        // and nothing else is running.
        if (inFlight.size <= settings.concurrency / 2) wake();
      });
    inFlight.add(running);
  };

  const claimPasses = async () => {
    do {
      again = false;
      const room = settings.concurrency - inFlight.size;
      if (stopped || room <= 0) return;
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDueDeliveries(db, { now: deps.now(), leaseMs, limit: room });
        if (claimFailing) logger.info('relay: claiming deliveries again');
        claimFailing = false;
      } catch (error) {
        if (!claimFailing) {
          logger.warn(
            { reason: reasonOf(error) },
            'relay: cannot claim deliveries; they wait in the database and are tried every poll',
          );
        }
        claimFailing = true;
        again = false;
        return;
      }
      for (const delivery of claimed) launch(delivery);
      if (claimed.length === room) again = true;
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimPasses().finally(() => {
      claiming = undefined;
      if (again) wake();
    });
  };

  const runUpkeep = () => {
    if (upkeep || stopped) return;
    upkeep = (async () => {
      const now = deps.now();
      if (deps.health) {
        await checkEndpointHealth(db, deps.health, settings, now, told);
      }
      if (performance.now() - gaugeReadAt >= GAUGE_EVERY_MS) {
        gaugeReadAt = performance.now();
        await refreshOldestPending(db, now, metrics);
      }
    })()
      .catch((error: unknown) => {
        logger.warn({ reason: reasonOf(error) }, 'relay: cannot check the endpoints’ health');
      })
      .finally(() => {
        upkeep = undefined;
      });
  };

  const tick = () => {
    wake();
    runUpkeep();
  };

  return {
    name: 'relay-deliverer',
    wake,
    inFlight: () => inFlight.size,
    async start() {
      stopped = false;
      relaySignal.on('deliveries', wake);
      timer = setInterval(tick, pollMs);
      timer.unref();
      tick();
      logger.info(
        { pollMs, concurrency: settings.concurrency, timeoutMs: settings.timeoutMs },
        'relay deliverer running',
      );
    },
    async stop() {
      stopped = true;
      relaySignal.off('deliveries', wake);
      if (timer) clearInterval(timer);
      timer = undefined;
      let waitTimer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        waitTimer = setTimeout(resolve, settings.timeoutMs + 1000);
        waitTimer.unref();
      });
      const drained = (async () => {
        await Promise.allSettled([claiming, upkeep]);
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      })();
      await Promise.race([drained, waited]);
      clearTimeout(waitTimer);
    },
  };
}

/** `paysync.item.kind` and `.id` of a delivery's subject (`transfer:tr_…`), and the tenant. */
function subjectAttributes(
  subject: string | null,
  tenant: string | undefined,
): Record<string, string> {
  const [kind, id] = subject?.split(':', 2) ?? [];
  return kind && id ? itemAttributes({ kind, id, tenant }) : itemTenant(tenant);
}

function itemTenant(tenant: string | undefined): Record<string, string> {
  return tenant !== undefined ? { [TRACE_ATTRIBUTES.tenant]: tenant } : {};
}
