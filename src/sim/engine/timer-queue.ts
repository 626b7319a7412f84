/** A job the scheduler runs once the simulator clock reaches `dueAtMs`. */
export interface ScheduledJob {
  readonly dueAtMs: number;
  /** Tie-breaker: jobs due at the same instant run in the order they were scheduled. */
  readonly sequence: number;
  readonly run: () => void;
}

/** A binary min-heap of jobs by due time, so seeding many items stays O(log n) per job. */
export class TimerQueue {
  private readonly heap: ScheduledJob[] = [];
  private sequence = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(dueAtMs: number, run: () => void): void {
    this.heap.push({ dueAtMs, sequence: (this.sequence += 1), run });
    this.siftUp(this.heap.length - 1);
  }

  /** Removes and returns the earliest job if it is due at or before `nowMs`. */
  popDue(nowMs: number): ScheduledJob | undefined {
    const top = this.heap[0];
    if (top === undefined || top.dueAtMs > nowMs) return undefined;
    const last = this.heap.pop();
    if (last !== undefined && this.heap.length > 0) {
      this.heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }

  private before(a: ScheduledJob, b: ScheduledJob): boolean {
    return a.dueAtMs < b.dueAtMs || (a.dueAtMs === b.dueAtMs && a.sequence < b.sequence);
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(this.at(child), this.at(parent))) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < this.heap.length && this.before(this.at(left), this.at(smallest))) smallest = left;
      if (right < this.heap.length && this.before(this.at(right), this.at(smallest)))
        smallest = right;
      if (smallest === parent) return;
      this.swap(parent, smallest);
      parent = smallest;
    }
  }

  private at(index: number): ScheduledJob {
    const job = this.heap[index];
    if (job === undefined) throw new Error(`timer queue index ${index} out of range`);
    return job;
  }

  private swap(a: number, b: number): void {
    const first = this.at(a);
    this.heap[a] = this.at(b);
    this.heap[b] = first;
  }
}
