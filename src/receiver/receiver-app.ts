import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { createInboxIntake, type StoredInboxEvent } from '../inbox/index.ts';
import { classifyAtIntake } from '../ingest/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { reasonOf } from '../error-reason.ts';
import { countSignatureFailure } from '../service-state/index.ts';
import {
  enqueueIngest,
  enqueueSyncBatch,
  type Queues,
  type SyncBatchOptions,
  type SyncJobData,
} from '../queues/index.ts';
import { checkReadiness, type ReadinessCheck } from './check-readiness.ts';
import {
  mountHealthRoutes,
  metricsMovedWarning,
  soleTenantMetrics,
  webhookOutcomes,
  type TenantMetrics,
} from '../metrics/index.ts';
import type { SignatureVerifier } from './signature-outcome.ts';
import { createSignatureVerifier, type SigningConfig } from './verify-signature.ts';
import { bodyReadError, sendError } from './webhook-errors.ts';
import { webhookRoute } from './webhook.route.ts';
import type { BacklogGate } from './backlog-gate.ts';
import { intakeLimits } from './intake-limits.ts';
import { itemAttributes, spanOf, traceparentOf } from '../tracing/index.ts';

/**
 * The trace each classified event was received in: one group commit stores the events of
 * several requests, so the context is carried per event, not taken from the commit's.
 */
const receivedInTrace = new WeakMap<object, string>();

/** What the receiver reads of the configuration: signing, and its capacity. */
export type ReceiverConfig = SigningConfig & Pick<Config, 'receiver'>;

export interface ReceiverDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  /** The producer connection the queues use (`createRedisConnection(url, 'producer')`). */
  readonly redis: Redis;
  readonly config: ReceiverConfig;
  readonly logger: Logger;
  /** The clock, resolved where the process is assembled (checks signed timestamps, stamps received events and refused signatures). */
  readonly now: Clock;
  /** More checks `/readyz` must pass, e.g. a role's own. */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** Size of and wait before the sync batches the receiver enqueues (`PAYSYNC_SYNC_BATCH_*`). */
  readonly syncBatch?: SyncBatchOptions;
  /** Longest wait for Redis to take the work before answering anyway. @defaultValue 1000 */
  readonly enqueueTimeoutMs?: number;
  /** A verifier already built (and its start-up warning logged) by the caller. */
  readonly verifier?: SignatureVerifier;
  /** True once shutdown began: new requests get 503 so the sender retries elsewhere or later. */
  readonly draining?: () => boolean;
  /**
   * The open inbox backlog as the server keeps it counted (see createBacklogGate); without it
   * only the in-flight limit applies.
   */
  readonly backlogGate?: BacklogGate;
  /**
   * The tenant whose receiver this is, in a process serving several (createTenantsFront): named
   * in its request spans. @defaultValue none
   */
  readonly tenant?: string;
  /**
   * The tenant's metrics handle: in a process serving several, the webhook series the receiver
   * counts carry the tenant's label. @defaultValue the handle of a process of one tenant (no
   * label)
   */
  readonly metrics?: TenantMetrics;
}

/**
 * The receiver's Express app: the webhook route, health and readiness, nothing else (metrics
 * and the ops surfaces are on the ops port). Throws
 * ConfigError at once when the signature scheme is misconfigured or unsafe (see
 * createSignatureVerifier), so a bad set-up never starts listening.
 */
export function createReceiverApp(deps: ReceiverDependencies): Express {
  const { config, logger, tenant } = deps;
  const metrics = deps.metrics ?? soleTenantMetrics;
  const verify = deps.verifier ?? createSignatureVerifier(config, logger);
  const intake = createInboxIntake(deps.db, {
    enqueue: async (stored) => {
      // Skip the wait when Redis is known to be down; the recovery sweep enqueues the rows.
      if (deps.redis.status !== 'ready') throw new Error(`Redis is ${deps.redis.status}`);
      await enqueueStored(deps, stored);
    },
    logger,
    ...(deps.enqueueTimeoutMs === undefined ? {} : { enqueueTimeoutMs: deps.enqueueTimeoutMs }),
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((_request, response, next) => {
    if (!deps.draining?.()) return next();
    response.setHeader('Connection', 'close');
    sendError(response, 503, 'shutting_down', 'the receiver is stopping; retry later');
  });
  const gate = deps.backlogGate;
  app.use(
    intakeLimits({
      path: config.webhook.path,
      maxInFlight: config.receiver.maxInFlight,
      ...(gate ? { gate } : {}),
      metrics,
    }),
  );
  app.use(
    webhookRoute({
      path: config.webhook.path,
      maxBytes: config.webhook.maxBytes,
      verify,
      extraStoredHeaders:
        config.webhook.scheme === 'hmac'
          ? [config.webhook.hmacHeader, config.webhook.hmacTimestampHeader ?? ''].filter(Boolean)
          : [],
      accept: async (events, trace) => {
        const classified = events.map((event) => classifyAtIntake(event, metrics));
        const traceparent = traceparentOf(trace.commit);
        if (traceparent) for (const event of classified) receivedInTrace.set(event, traceparent);
        const only = classified.length === 1 ? classified[0]!.resource : undefined;
        if (only) spanOf(trace.commit)?.setAttributes(itemAttributes({ ...only, tenant }));
        const results = await intake.acceptAll(classified);
        gate?.noteStored(results.filter((result) => !result.duplicate).length);
        return results;
      },
      // A durable per-minute count the workers' alert watcher reads (signature_failures).
      onRefusedSignature: () =>
        countSignatureFailure(deps.db, deps.now()).catch((error: unknown) => {
          logger.warn(
            { reason: reasonOf(error) },
            'could not count a refused webhook signature; the signature_failures alert may miss it',
          );
        }),
      now: deps.now,
      logger,
      ...(tenant !== undefined ? { tenant } : {}),
      metrics,
    }),
  );
  mountHealthRoutes(app, {
    readiness: () =>
      checkReadiness({
        db: deps.db,
        redis: deps.redis,
        now: deps.now,
        ...(deps.readinessChecks ? { extraChecks: deps.readinessChecks } : {}),
      }),
    metrics: { moved: metricsMovedWarning(logger) },
  });
  app.use((_request, response) => sendError(response, 404, 'not_found', 'no such route'));
  const onError: ErrorRequestHandler = (error, _request, response, next) => {
    if (response.headersSent) return next(error);
    if (typeof (error as { type?: unknown }).type === 'string') {
      const mapped = bodyReadError(error);
      metrics.inc(webhookOutcomes, { outcome: mapped.code });
      return sendError(response, mapped.status, mapped.code, mapped.message);
    }
    logger.error({ err: error }, 'receiver request failed');
    sendError(response, 500, 'internal_error', 'unexpected error; it was logged');
  };
  app.use(onError);
  return app;
}

/**
 * Work for the rows one group commit stored: one `sync-batch` job (or a few, past the batch
 * size) for the rows classified at intake, an ingest job for each of the others (events the
 * classifier could not read, events with no id). Both in flight at once: one round trip's wait.
 */
async function enqueueStored(
  deps: ReceiverDependencies,
  stored: readonly StoredInboxEvent[],
): Promise<void> {
  const refs: SyncJobData[] = [];
  const slow: number[] = [];
  const traces = new Map<number, string | undefined>();
  for (const { inboxId, event } of stored) {
    if (!event.resource) {
      slow.push(inboxId);
      traces.set(inboxId, receivedInTrace.get(event));
      continue;
    }
    const { kind, id, reference } = event.resource;
    refs.push({
      kind,
      ...(id !== undefined ? { id } : {}),
      ...(reference !== undefined ? { reference } : {}),
      inboxId,
      via: 'webhook',
      ...(receivedInTrace.has(event) ? { traceparent: receivedInTrace.get(event)! } : {}),
    });
  }
  await Promise.all([
    refs.length > 0 ? enqueueSyncBatch(deps.queues, refs, deps.syncBatch) : undefined,
    slow.length > 0
      ? enqueueIngest(deps.queues, slow, 'webhook', (inboxId) => traces.get(inboxId))
      : undefined,
  ]);
}
