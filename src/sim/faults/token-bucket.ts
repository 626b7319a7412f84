/**
 * The `rps` throttle: a token bucket holding at most `ratePerSecond` tokens, refilled
 * continuously at `ratePerSecond` per second of real time (not the simulator clock). A burst
 * of up to `ratePerSecond` requests passes at once; a steady rate at or below it never fails.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAtMs: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.tokens = ratePerSecond;
    this.refilledAtMs = nowMs();
  }

  /** Takes a token; false when the bucket is empty (the request is throttled). */
  take(): boolean {
    const now = this.nowMs();
    const refill = ((now - this.refilledAtMs) / 1000) * this.ratePerSecond;
    this.tokens = Math.min(this.ratePerSecond, this.tokens + refill);
    this.refilledAtMs = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Seconds until the next token, for the Retry-After header. */
  secondsUntilNextToken(): number {
    return Math.max(1, Math.ceil((1 - this.tokens) / this.ratePerSecond));
  }
}
