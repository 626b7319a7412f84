/**
 * The simulator's clock. It follows real time plus an offset moved by `advance(ms)`, or, when
 * frozen, stands still except for `advance`. While a scheduled transition runs the clock is
 * pinned to that transition's due time, so status history shows when a change was due.
 */
export class SimClock {
  private offsetMs = 0;
  private pinnedMs: number | undefined;
  private readonly frozenAtMs: number | undefined;

  constructor(options: { startAt?: Date | undefined; frozen?: boolean | undefined }) {
    const realNow = Date.now();
    const start = options.startAt?.getTime() ?? realNow;
    if (options.frozen) this.frozenAtMs = start;
    else this.offsetMs = start - realNow;
  }

  /** Milliseconds since the epoch, as the simulator sees it. */
  nowMs(): number {
    if (this.pinnedMs !== undefined) return this.pinnedMs;
    return (this.frozenAtMs ?? Date.now()) + this.offsetMs;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** ISO 8601 UTC with milliseconds. */
  iso(): string {
    return this.now().toISOString();
  }

  /** Moves the clock forward; negative values are refused. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance(ms) needs ms >= 0');
    this.offsetMs += ms;
  }

  /** Runs `work` with the clock showing `atMs`. */
  pinned<T>(atMs: number, work: () => T): T {
    const previous = this.pinnedMs;
    this.pinnedMs = atMs;
    try {
      return work();
    } finally {
      this.pinnedMs = previous;
    }
  }
}
