import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { upstreamRateCurrent, upstreamLaneWaiting } from './upstream-metrics.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';

/**
 * Which work a request serves. The books (syncs, sweeps, backfills, balances) go first;
 * receipts take what the books leave, all of it when the books are idle, and
 * `receiptsShare` of it when both wait.
 */
export type BudgetLane = 'books' | 'receipts';

/** Waits until a request may go out. Never rejects for being over the limit: it queues. */
export interface RequestRateLimiter {
  acquire(lane?: BudgetLane, signal?: AbortSignal): Promise<void>;
}

/** The client's limiter: it also hears the service's 429s and slows the deployment down. */
export interface AdaptiveRateLimiter extends RequestRateLimiter {
  /** A 429: slow down, and hold every lane until `retryAfterMs` has passed. */
  throttled(retryAfterMs: number | undefined): void;
  /** Requests per second handed out now (at most the ceiling, `PAYSYNC_UPSTREAM_RPS`). */
  currentRate(): number;
  /** Requests waiting, per lane. */
  waiting(): Record<BudgetLane, number>;
}

export interface RateLimiterSettings {
  /** The ceiling: `PAYSYNC_UPSTREAM_RPS`. */
  rps: number;
  redis?: Redis | undefined;
  /**
   * Redis key prefix of the deployment (the client's `rateLimitKey`, by default
   * `<PAYSYNC_QUEUE_PREFIX>:upstream:rps`). The budget's key is this prefix, the environment and
   * the merchant id: see {@link rateLimitKeyOf}.
   */
  key: string;
  /** Whose budget this is: the service counts requests per merchant. */
  merchantId: string;
  /** `live` and `sandbox` are budgeted apart, even for one merchant id. */
  environment: string;
  /**
   * The receipts' share of the budget while the books wait too (`PAYSYNC_RECEIPTS_BUDGET_SHARE`).
   * @defaultValue 0.2
   */
  receiptsShare?: number;
  /** Where a run of 429s is told, once per run. */
  logger?: Logger | undefined;
  /**
   * The metrics handle the gauges are set through (the tenant's, in a process serving several).
   * @defaultValue the handle of a process of one tenant (no label)
   */
  metrics?: TenantMetrics;
  /** Monotonic milliseconds (tests). @defaultValue `performance.now()` */
  nowMs?: () => number;
  /** Wall-clock milliseconds, shared by the processes (tests). @defaultValue `Date.now()` */
  wallMs?: () => number;
}

/**
 * The Redis key of one budget: `<prefix>:<environment>:<merchant id>`. Two deployments on one
 * Redis, two merchants, or live and sandbox of one merchant, never share a budget; the
 * processes of one deployment (same prefix, merchant and environment) always do. The merchant
 * id is percent-encoded so an id holding `:` cannot reach another budget's key.
 */
export function rateLimitKeyOf(
  settings: Pick<RateLimiterSettings, 'key' | 'merchantId' | 'environment'>,
): string {
  return `${settings.key}:${settings.environment}:${encodeURIComponent(settings.merchantId)}`;
}

/** The receipts' share of the budget while the books wait too, unless configured. */
export const DEFAULT_RECEIPTS_SHARE = 0.2;

/** How the rate answers the service's 429s (docs/upstream-client.md, "The budget"). */
const ADAPT = {
  /** The rate after a 429, as a share of the rate that met it. */
  decrease: 0.7,
  /** One decrease per this long: the 429s of requests already in flight are one signal. */
  decreaseEveryMs: 1_000,
  /** Climbing back: a step each second without a 429. */
  stepEveryMs: 1_000,
  /** Step below 90 % of the rate that last met a 429, as a share of the ceiling… */
  fastStep: 0.1,
  /** …and above it, where the service's limit probably is. */
  slowStep: 0.02,
  /** After this long without a 429, the last throttled rate is forgotten. */
  forgetAfterMs: 60_000,
  /** Never slower than this many requests per second. */
  floor: 0.5,
  /** How often a process looks for another's 429 in Redis, while it has requests waiting. */
  listenEveryMs: 250,
} as const;

/**
 * Points of the shared window per request at the ceiling: a grant at a lower rate costs more
 * (`ceiling / rate` requests' worth), so the processes together hand out the lower rate.
 */
export const BUDGET_POINTS_PER_REQUEST = 100;

/** A 429 one process met, told to the others through Redis. */
interface ThrottleSignal {
  /** Tells one 429 apart from the next, and a process's own from another's. */
  readonly id: string;
  /** Wall-clock milliseconds until which every lane holds (its Retry-After). */
  readonly holdUntil: number;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * The deployment's budget on the service (DESIGN principle 9): every request of a process
 * passes here.
 *
 * - **Paced, not bunched.** Grants are spaced `1 / rate` seconds apart, so the budget is used
 *   whole while work waits and never arrives as a burst. (The former `execEvenly` one-second
 *   window handed 12.4 of 20 requests a second to 8 concurrent callers.)
 * - **Shared.** With Redis, a one-second window of `rps` points keyed by {@link rateLimitKeyOf}
 *   caps the processes of one deployment together; if Redis is unavailable an in-memory window
 *   keeps this process at `rps` instead of failing requests.
 * - **Books first.** Two lanes: the books' requests go first; receipts take the rest, or
 *   `receiptsShare` of the grants while both wait.
 * - **Adaptive.** `PAYSYNC_UPSTREAM_RPS` is a ceiling: a 429 cuts the rate to 70 % (once a
 *   second) and holds every lane until its `Retry-After`; each calm second climbs back, fast
 *   while well below the rate that met the 429, slowly near it.
 * - **Together.** With Redis, a 429 is told to the deployment's other processes (a key beside
 *   the window, read four times a second while requests wait), which slow down and hold as if
 *   they had met it; and a grant costs the shared window `ceiling / rate` requests' worth, so
 *   the processes together hand out the lowered rate, not each of them.
 */
export function createRequestRateLimiter(settings: RateLimiterSettings): AdaptiveRateLimiter {
  return new BudgetLimiter(settings);
}

class BudgetLimiter implements AdaptiveRateLimiter {
  private readonly ceiling: number;
  private readonly nowMs: () => number;
  private readonly shared: RateLimiterMemory | RateLimiterRedis;
  private readonly sharedKey = 'budget';
  private readonly receiptsShare: number;
  private readonly queues: Record<BudgetLane, Waiter[]> = { books: [], receipts: [] };
  private rate: number;
  private nextGrantMs = 0;
  private holdUntilMs = 0;
  private lastDecreaseMs = -Infinity;
  private lastStepMs = 0;
  private throttledAtRate: number | undefined;
  private lastThrottleMs = -Infinity;
  /** Throttles in the current run of 429s; 0 when calm. */
  private throttleRun = 0;
  private receiptCredit = 0;
  private pumping = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly wallMs: () => number;
  private readonly signalKey: string;
  /** The last 429 told or heard, so that each is applied once. */
  private lastSignalId: string | undefined;
  private lastListenMs = -Infinity;
  private listening = false;

  constructor(private readonly settings: RateLimiterSettings) {
    this.ceiling = Math.max(1, Math.floor(settings.rps));
    this.rate = this.ceiling;
    this.nowMs = settings.nowMs ?? (() => performance.now());
    this.receiptsShare = settings.receiptsShare ?? DEFAULT_RECEIPTS_SHARE;
    this.wallMs = settings.wallMs ?? (() => Date.now());
    const keyPrefix = rateLimitKeyOf(settings);
    this.signalKey = `${keyPrefix}:throttled`;
    const points = this.ceiling * BUDGET_POINTS_PER_REQUEST;
    const memory = new RateLimiterMemory({ points, duration: 1, keyPrefix });
    this.shared = settings.redis
      ? new RateLimiterRedis({
          storeClient: settings.redis,
          points,
          duration: 1,
          keyPrefix,
          insuranceLimiter: memory,
        })
      : memory;
    this.publishRate();
  }

  acquire(lane: BudgetLane = 'books', signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues[lane];
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          this.publishWaiting();
          reject(abortReason(signal!));
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      queue.push(waiter);
      this.publishWaiting();
      void this.pump();
    });
  }

  throttled(retryAfterMs: number | undefined): void {
    const now = this.nowMs();
    if (this.settings.redis) {
      const signal: ThrottleSignal = {
        id: randomUUID(),
        holdUntil: this.wallMs() + Math.max(0, retryAfterMs ?? 0),
      };
      this.lastSignalId = signal.id;
      // Told to the others, best effort: a process that misses it meets its own 429s.
      this.settings.redis
        .set(this.signalKey, JSON.stringify(signal), 'PX', ADAPT.forgetAfterMs)
        .catch(() => undefined);
    }
    this.slowDown(now, retryAfterMs);
  }

  /** A 429, met here or told by another process: slow down, hold, and say so once a run. */
  private slowDown(now: number, retryAfterMs: number | undefined): void {
    this.lastThrottleMs = now;
    this.throttleRun += 1;
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.holdUntilMs = Math.max(this.holdUntilMs, now + retryAfterMs);
    }
    if (now - this.lastDecreaseMs < ADAPT.decreaseEveryMs) return;
    this.lastDecreaseMs = now;
    this.lastStepMs = now;
    this.throttledAtRate = this.rate;
    const before = this.rate;
    this.rate = Math.max(ADAPT.floor, this.rate * ADAPT.decrease);
    this.publishRate();
    if (this.throttleRun === 1) {
      this.settings.logger?.warn(
        {
          ceiling: this.ceiling,
          from: round(before),
          to: round(this.rate),
          retryAfterMs: retryAfterMs ?? null,
        },
        'the payment service is throttling (429): slowing down the whole budget; one line per run of 429s, the next when it is back at the ceiling',
      );
    }
  }

  currentRate(): number {
    this.climb(this.nowMs());
    return this.rate;
  }

  waiting(): Record<BudgetLane, number> {
    return { books: this.queues.books.length, receipts: this.queues.receipts.length };
  }

  /** Each calm second climbs back towards the ceiling. */
  private climb(now: number): void {
    if (this.rate >= this.ceiling) return;
    if (now - this.lastThrottleMs > ADAPT.forgetAfterMs) this.throttledAtRate = undefined;
    while (now - this.lastStepMs >= ADAPT.stepEveryMs && this.rate < this.ceiling) {
      this.lastStepMs += ADAPT.stepEveryMs;
      const near = this.throttledAtRate !== undefined && this.rate >= 0.9 * this.throttledAtRate;
      this.rate = Math.min(
        this.ceiling,
        this.rate + this.ceiling * (near ? ADAPT.slowStep : ADAPT.fastStep),
      );
    }
    this.publishRate();
    if (this.rate >= this.ceiling && this.throttleRun > 0) {
      this.settings.logger?.info(
        { ceiling: this.ceiling, throttled: this.throttleRun },
        'the payment service budget is back at its ceiling after a run of 429s',
      );
      this.throttleRun = 0;
    }
  }

  /**
   * Looks, at most every `listenEveryMs`, for a 429 another process of the deployment met, and
   * slows down as if it had met it. Never blocks a grant: the answer is applied when it comes.
   */
  private listen(now: number): void {
    const redis = this.settings.redis;
    if (!redis || this.listening || now - this.lastListenMs < ADAPT.listenEveryMs) return;
    this.lastListenMs = now;
    this.listening = true;
    redis
      .get(this.signalKey)
      .then((value) => {
        const signal = value === null ? undefined : parseSignal(value);
        if (!signal || signal.id === this.lastSignalId) return;
        this.lastSignalId = signal.id;
        const at = this.nowMs();
        this.slowDown(at, Math.max(0, signal.holdUntil - this.wallMs()));
        void this.pump();
      })
      .catch(() => undefined)
      .finally(() => {
        this.listening = false;
      });
  }

  /** The lane of the next grant: the books, but receipts their share while both wait. */
  private nextLane(): BudgetLane | undefined {
    const books = this.queues.books.length > 0;
    const receipts = this.queues.receipts.length > 0;
    if (!books) return receipts ? 'receipts' : undefined;
    if (!receipts) return 'books';
    this.receiptCredit = Math.min(1, this.receiptCredit + this.receiptsShare);
    if (this.receiptCredit >= 1) {
      this.receiptCredit -= 1;
      return 'receipts';
    }
    return 'books';
  }

  /** Hands out grants one at a time, each `1 / rate` seconds after the last. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        if (this.queues.books.length === 0 && this.queues.receipts.length === 0) return;
        const now = this.nowMs();
        this.listen(now);
        this.climb(now);
        const due = Math.max(this.nextGrantMs, this.holdUntilMs);
        if (now < due) {
          this.wakeAt(due - now);
          return;
        }
        const waitMs = await this.sharedWait();
        if (waitMs > 0) {
          this.wakeAt(waitMs);
          return;
        }
        const lane = this.nextLane();
        if (!lane) return;
        const waiter = this.queues[lane].shift()!;
        waiter.signal?.removeEventListener('abort', waiter.onAbort);
        this.publishWaiting();
        // Paced from the later of the due time and now: an idle spell earns no burst.
        this.nextGrantMs = Math.max(due, this.nowMs() - 1000 / this.rate / 2) + 1000 / this.rate;
        waiter.resolve();
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Milliseconds until the deployment's shared window has a point (0: taken). */
  private async sharedWait(): Promise<number> {
    const cost = Math.min(
      this.ceiling * BUDGET_POINTS_PER_REQUEST,
      Math.round((BUDGET_POINTS_PER_REQUEST * this.ceiling) / this.rate),
    );
    try {
      await this.shared.consume(this.sharedKey, cost);
      return 0;
    } catch (error) {
      if (error instanceof RateLimiterRes) return Math.max(1, error.msBeforeNext);
      // The store failed with no insurance left: the pacing alone keeps this process at rate.
      return 0;
    }
  }

  private wakeAt(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.pump();
      },
      Math.max(1, Math.ceil(delayMs)),
    );
  }

  private publishRate(): void {
    (this.settings.metrics ?? soleTenantMetrics).set(upstreamRateCurrent, {}, this.rate);
  }

  private publishWaiting(): void {
    const metrics = this.settings.metrics ?? soleTenantMetrics;
    metrics.set(upstreamLaneWaiting, { lane: 'books' }, this.queues.books.length);
    metrics.set(upstreamLaneWaiting, { lane: 'receipts' }, this.queues.receipts.length);
  }
}

function parseSignal(value: string): ThrottleSignal | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<ThrottleSignal>;
    return typeof parsed.id === 'string' && typeof parsed.holdUntil === 'number'
      ? { id: parsed.id, holdUntil: parsed.holdUntil }
      : undefined;
  } catch {
    return undefined;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function round(rate: number): number {
  return Math.round(rate * 100) / 100;
}
