import type { Logger } from 'pino';
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { StoredWebhook } from '../engine/sim-store.ts';
import type { FaultSettings } from '../faults/fault-settings.ts';
import type { WebhookEvent } from './webhook-event.ts';
import { reasonOf } from '../../error-reason.ts';
import pLimit, { type LimitFunction } from 'p-limit';
import { WebhookSender } from './webhook-sender.ts';

/** One try at delivering one event to one URL, as the control surface lists it. */
export interface DeliveryAttempt {
  eventId: string;
  eventType: string;
  webhookId: string;
  url: string;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  /** Real (wall-clock) time the try started, ISO 8601 UTC. */
  at: string;
  /** `delivered` (2xx), `failed` (non-2xx or network error), `dropped` (fault injection). */
  outcome: 'delivered' | 'failed' | 'dropped';
  statusCode: number | null;
  error?: string;
  durationMs: number;
  /** A second copy sent by the duplicate fault. */
  duplicate?: boolean;
  /** Real time of the next retry; absent when delivered, dropped or out of retries. */
  nextRetryAt?: string;
}

export interface WebhookDispatcherSettings {
  /** Waits between tries; the number of retries is its length. */
  retryDelaysMs: readonly number[];
  /** Per-try timeout. */
  timeoutMs: number;
  /**
   * Tries in flight at once; the rest wait, and their timeout starts when they are sent. Also
   * the most keep-alive connections held open to one receiver.
   */
  concurrency: number;
  /** Attempts kept in detail for {@link WebhookDispatcher.list} (the newest); all are counted. */
  attemptsKept: number;
  faults: () => FaultSettings;
  random: () => SeededRandom;
  /** Looks a webhook up again before each try, so a deleted or edited one is respected. */
  webhook: (id: string) => StoredWebhook | undefined;
  logger: Logger;
}

interface Delivery {
  eventId: string;
  eventType: string;
  /** The event as sent: serialised when published, so later changes do not leak into it. */
  payload: string;
  webhookId: string;
  attempt: number;
  duplicate: boolean;
}

/**
 * Delivers events with Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), retrying non-2xx answers and network errors on a back-off schedule,
 * and records every try. Timers use real time so signatures carry a current timestamp. Tries
 * go out over keep-alive connections (see {@link WebhookSender}).
 */
export class WebhookDispatcher {
  private readonly attempts: DeliveryAttempt[] = [];
  private readonly outcomes = { delivered: 0, failed: 0, dropped: 0, eventsDelivered: 0 };
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sender: WebhookSender;
  private pending = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly sending: LimitFunction;
  /** Bumped by reset(): a try still waiting for its turn from before then is not sent. */
  private generation = 0;

  constructor(private readonly settings: WebhookDispatcherSettings) {
    this.sending = pLimit(settings.concurrency);
    this.sender = new WebhookSender(settings.concurrency);
  }

  /**
   * Queues `event` for each webhook in `webhookIds`. The event is serialised here, so it may
   * hold live objects that change afterwards.
   */
  publish(event: WebhookEvent, webhookIds: readonly string[]): void {
    if (this.stopped || webhookIds.length === 0) return;
    const faults = this.settings.faults();
    const random = this.settings.random();
    const payload = JSON.stringify(event);
    for (const webhookId of webhookIds) {
      const delivery: Delivery = {
        eventId: event.id,
        eventType: event.type,
        payload,
        webhookId,
        attempt: 1,
        duplicate: false,
      };
      if (random.chance(faults.webhookDropRate)) {
        this.record(delivery, { outcome: 'dropped', statusCode: null, durationMs: 0 });
        continue;
      }
      const holdBack = random.chance(faults.webhookReorderRate) ? faults.webhookReorderDelayMs : 0;
      const duplicate = random.chance(faults.webhookDuplicateRate);
      this.later(holdBack, delivery);
      if (duplicate) this.later(holdBack + 1, { ...delivery, duplicate: true });
    }
  }

  /** The newest attempts (up to `attemptsKept`), oldest first. */
  list(): readonly DeliveryAttempt[] {
    const { attemptsKept } = this.settings;
    return this.attempts.length > attemptsKept
      ? this.attempts.slice(this.attempts.length - attemptsKept)
      : this.attempts;
  }

  /**
   * Every attempt since start (or reset) by outcome, including those no longer listed, and
   * `eventsDelivered`: events delivered per webhook (a duplicate copy not counted again).
   */
  counts(): { delivered: number; failed: number; dropped: number; eventsDelivered: number } {
    return { ...this.outcomes };
  }

  /** Resolves once no delivery is in flight or waiting for a retry. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets the attempt log and cancels waiting retries. */
  reset(): void {
    this.attempts.length = 0;
    this.outcomes.delivered = 0;
    this.outcomes.failed = 0;
    this.outcomes.dropped = 0;
    this.outcomes.eventsDelivered = 0;
    this.generation += 1;
    this.cancelTimers();
  }

  /** Cancels retries and aborts tries in flight. */
  stop(): void {
    this.stopped = true;
    this.sender.destroy();
    this.cancelTimers();
  }

  private cancelTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.pending -= this.timers.size;
    this.timers.clear();
    this.settleIdle();
  }

  private later(delayMs: number, delivery: Delivery): void {
    this.pending += 1;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const generation = this.generation;
      void this.sending(async () => {
        if (generation === this.generation) await this.attempt(delivery);
      }).finally(() => {
        this.pending -= 1;
        this.settleIdle();
      });
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const stored = this.settings.webhook(delivery.webhookId);
    if (!stored || this.stopped) return;
    const started = performance.now();
    const sentAt = new Date();
    const timestamp = String(Math.floor(sentAt.getTime() / 1000));
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.payload)),
      'user-agent': 'paysync-sim',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': signStandardWebhook(
        stored.secret,
        delivery.eventId,
        timestamp,
        delivery.payload,
      ),
    };
    let statusCode: number | null = null;
    let error: string | undefined;
    try {
      statusCode = await this.sender.post(
        stored.resource.url,
        headers,
        delivery.payload,
        this.settings.timeoutMs,
      );
    } catch (cause) {
      error = reasonOf(cause);
    }
    const durationMs = Math.round(performance.now() - started);
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const retryIn =
      delivered || delivery.duplicate
        ? undefined
        : this.settings.retryDelaysMs[delivery.attempt - 1];
    this.record(delivery, {
      outcome: delivered ? 'delivered' : 'failed',
      statusCode,
      durationMs,
      at: sentAt.toISOString(),
      ...(error === undefined ? {} : { error }),
      ...(retryIn === undefined
        ? {}
        : { nextRetryAt: new Date(Date.now() + retryIn).toISOString() }),
    });
    if (retryIn !== undefined && !this.stopped) {
      this.later(retryIn, { ...delivery, attempt: delivery.attempt + 1 });
    } else if (!delivered) {
      this.settings.logger.debug(
        { eventId: delivery.eventId, webhookId: delivery.webhookId, statusCode, error },
        'sim webhook delivery failed',
      );
    }
  }

  private record(
    delivery: Delivery,
    result: Pick<DeliveryAttempt, 'outcome' | 'statusCode' | 'durationMs'> &
      Partial<DeliveryAttempt>,
  ): void {
    const url = this.settings.webhook(delivery.webhookId)?.resource.url ?? '';
    this.outcomes[result.outcome] += 1;
    if (result.outcome === 'delivered' && !delivery.duplicate) this.outcomes.eventsDelivered += 1;
    // Trimmed in steps of `attemptsKept`, so the log costs no copy per attempt.
    if (this.attempts.length >= 2 * this.settings.attemptsKept) {
      this.attempts.splice(0, this.attempts.length - this.settings.attemptsKept);
    }
    this.attempts.push({
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      webhookId: delivery.webhookId,
      url,
      attempt: delivery.attempt,
      at: new Date().toISOString(),
      ...result,
      ...(delivery.duplicate ? { duplicate: true } : {}),
    });
  }

  private settleIdle(): void {
    if (this.pending > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under the `whsec_…` key, as the
 * Standard Webhooks specification signs (and the `standardwebhooks` package, which the tests
 * verify against): on node:crypto, since the package's pure-JavaScript SHA-256 was the
 * simulator's largest cost per delivery.
 */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestamp: string,
  payload: string,
): string {
  const mac = createHmac('sha256', signingKey(secret))
    .update(`${id}.${timestamp}.${payload}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** Decoded signing keys by secret: a simulator signs thousands of deliveries with a few. */
const signingKeys = new Map<string, KeyObject>();

function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(
      Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'),
    );
    if (signingKeys.size > 1_000) signingKeys.clear();
    signingKeys.set(secret, key);
  }
  return key;
}
