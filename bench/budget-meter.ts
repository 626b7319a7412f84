import { operations, type OperationDefinition } from '../src/upstream/contract/index.ts';

/**
 * The daemon's upstream requests, read from its Prometheus text: `paysync_upstream_requests_total`
 * by `operation` and `outcome` (`ok`, or an error code; a 429 is `throttled`), and
 * `paysync_upstream_throttles_total` when present.
 */
export interface RequestCounts {
  /** Every attempt, 429s included. */
  readonly total: number;
  /** Attempts the service answered 429. */
  readonly throttled: number;
  /** Attempts by operation, 429s included. */
  readonly byOperation: ReadonlyMap<string, number>;
  /** Attempts answered (not 429) on the operations the service may throttle. */
  readonly answeredThrottleable: number;
}

/** The operations whose documentation lists 429: the ones the simulator's `rps` bucket counts. */
const THROTTLEABLE: ReadonlySet<string> = new Set(
  Object.values(operations as Record<string, OperationDefinition>)
    .filter((operation) => operation.errors.includes('throttled'))
    .map((operation) => operation.operationId),
);

function labelsOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

export function parseRequestCounts(metrics: string): RequestCounts {
  let total = 0;
  let throttledByOutcome = 0;
  let throttledByCounter: number | undefined;
  const byOperation = new Map<string, number>();
  let answeredThrottleable = 0;
  for (const match of metrics.matchAll(
    /^(paysync_upstream_requests_total|paysync_upstream_throttles_total)\{([^}]*)\} (\S+)$/gm,
  )) {
    const labels = labelsOf(match[2]!);
    const value = Number(match[3]);
    if (match[1] === 'paysync_upstream_throttles_total') {
      throttledByCounter = (throttledByCounter ?? 0) + value;
      continue;
    }
    total += value;
    const operation = labels.get('operation') ?? 'unknown';
    if (labels.get('outcome') === 'throttled') throttledByOutcome += value;
    else if (THROTTLEABLE.has(operation)) answeredThrottleable += value;
    byOperation.set(operation, (byOperation.get(operation) ?? 0) + value);
  }
  return {
    total,
    throttled: Math.max(throttledByOutcome, throttledByCounter ?? 0),
    byOperation,
    answeredThrottleable,
  };
}

/** Requests answered per second ÷ R over a stretch of a run. */
export interface BudgetUse {
  /** Every operation, 429s left out. */
  readonly average: number;
  /** Only the operations that document 429 (what the simulator's bucket counts). */
  readonly averageThrottleable: number;
  /** Sampled intervals (about a second each). */
  readonly intervals: number;
  /** The share of them at ≥ 75 % of R, every operation counted. */
  readonly shareAtThreeQuarters: number;
}

/** One reading of the counters, at a time in ms. */
export interface MeterSample extends RequestCounts {
  readonly atMs: number;
}

/**
 * Reads the daemon's counters every `intervalMs` (a missed scrape is skipped, not zero), so the
 * requests of each second can be set against the budget.
 */
export class RequestMeter {
  readonly samples: MeterSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly metricsUrl: string,
    private readonly intervalMs = 1000,
  ) {}

  async read(): Promise<MeterSample | undefined> {
    try {
      const response = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(2000) });
      const sample = { atMs: Date.now(), ...parseRequestCounts(await response.text()) };
      this.samples.push(sample);
      return sample;
    } catch {
      return undefined;
    }
  }

  start(): void {
    void this.read();
    this.timer = setInterval(() => void this.read(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  latest(): MeterSample | undefined {
    return this.samples.at(-1);
  }

  /** Requests answered (not 429) per second over the last `seconds`. */
  recentRate(seconds: number): number {
    const last = this.samples.at(-1);
    const first = [...this.samples]
      .reverse()
      .find((s) => last && last.atMs - s.atMs >= seconds * 1000);
    if (!last || !first || last.atMs === first.atMs) return 0;
    return (
      (last.total - last.throttled - (first.total - first.throttled)) /
      ((last.atMs - first.atMs) / 1000)
    );
  }

  /**
   * Budget use between `fromMs` and `toMs`: requests the service answered (every operation,
   * 429s left out: they spend none of the service's budget) per second ÷ `rps`, on average
   * and per sampled interval (the share of intervals at or above three quarters of `rps`).
   */
  budgetUse(fromMs: number, toMs: number, rps: number): BudgetUse {
    const inside = this.samples.filter((s) => s.atMs >= fromMs - 500 && s.atMs <= toMs + 500);
    if (inside.length < 2)
      return { average: 0, intervals: 0, shareAtThreeQuarters: 0, averageThrottleable: 0 };
    const answered = (s: MeterSample) => s.total - s.throttled;
    const first = inside[0]!;
    const last = inside.at(-1)!;
    const average = (answered(last) - answered(first)) / ((last.atMs - first.atMs) / 1000) / rps;
    let full = 0;
    for (let i = 1; i < inside.length; i += 1) {
      const rate =
        (answered(inside[i]!) - answered(inside[i - 1]!)) /
        ((inside[i]!.atMs - inside[i - 1]!.atMs) / 1000);
      if (rate >= 0.75 * rps) full += 1;
    }
    return {
      average,
      averageThrottleable:
        (last.answeredThrottleable - first.answeredThrottleable) /
        ((last.atMs - first.atMs) / 1000) /
        rps,
      intervals: inside.length - 1,
      shareAtThreeQuarters: full / (inside.length - 1),
    };
  }

  /** The share of attempts answered 429 between two times. */
  throttledShare(fromMs: number, toMs: number): { share: number; attempts: number } {
    const inside = this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs + 500);
    if (inside.length < 2) return { share: 0, attempts: 0 };
    const first = inside[0]!;
    const last = inside.at(-1)!;
    const attempts = last.total - first.total;
    return { share: attempts === 0 ? 0 : (last.throttled - first.throttled) / attempts, attempts };
  }
}
