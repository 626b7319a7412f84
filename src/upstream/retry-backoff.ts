import {
  ExponentialBackoff,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
} from 'cockatiel';
import { ThrottledError } from './errors.ts';

type Context = IRetryBackoffContext<unknown>;

/**
 * cockatiel's exponential back-off with decorrelated jitter, except that a `Retry-After` from
 * a 429 is a floor: we never come back sooner than the service asked.
 */
export class RetryAfterBackoff implements IBackoffFactory<Context> {
  constructor(
    private readonly exponential: IBackoffFactory<unknown>,
    private readonly previous?: IBackoff<unknown>,
  ) {}

  static create(initialDelayMs: number, maxDelayMs: number): RetryAfterBackoff {
    return new RetryAfterBackoff(
      new ExponentialBackoff({ initialDelay: initialDelayMs, maxDelay: maxDelayMs }),
    );
  }

  next(context: Context): IBackoff<Context> {
    const step = this.previous ? this.previous.next(context) : this.exponential.next(context);
    const error = 'error' in context.result ? context.result.error : undefined;
    const floor = error instanceof ThrottledError ? (error.retryAfterMs ?? 0) : 0;
    return {
      duration: Math.max(step.duration, floor),
      next: (nextContext: Context) =>
        new RetryAfterBackoff(this.exponential, step).next(nextContext),
    };
  }
}
