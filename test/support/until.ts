import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions<T> {
  /** What is awaited, in a few words: the timeout error names it. */
  readonly message: string;
  /**
   * The longest wait. Generous on purpose: a condition that holds returns at once, so the
   * bound only decides how long a broken test takes to say so on a busy machine.
   * @defaultValue 30_000
   */
  readonly timeoutMs?: number;
  /**
   * Pause between two probes.
   * @defaultValue 50
   */
  readonly intervalMs?: number;
  /**
   * Whether a probed value ends the wait.
   * @defaultValue anything but `undefined`, `null` and `false`
   */
  readonly accept?: (value: T) => boolean;
}

/** Raised when {@link until}'s condition did not hold in time; names it and the last value. */
export class UntilTimeoutError extends Error {
  override readonly name = 'UntilTimeoutError';
}

function shown(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}

const settled = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== false;

/**
 * The one way a test waits: probes `condition` until it returns an accepted value and returns
 * that value, or throws {@link UntilTimeoutError} after `timeoutMs`. Use it instead of a fixed
 * sleep whenever the test waits for something to happen; a probe that throws ends the wait
 * with its error (catch inside the probe to keep polling, e.g. a server not yet listening).
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  options: UntilOptions<T> & { readonly accept?: undefined },
): Promise<Exclude<T, undefined | null | false>>;
export async function until<T>(
  condition: () => T | Promise<T>,
  options: UntilOptions<T> & { readonly accept: (value: T) => boolean },
): Promise<T>;
export async function until<T>(
  condition: () => T | Promise<T>,
  options: UntilOptions<T>,
): Promise<T> {
  const { message, timeoutMs = 30_000, intervalMs = 50, accept = settled } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (accept(value)) return value;
    if (Date.now() >= deadline) {
      throw new UntilTimeoutError(
        `timed out after ${timeoutMs} ms waiting for ${message}; last value: ${shown(value)}`,
      );
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
