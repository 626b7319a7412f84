import type { Request, Response } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../logger.ts';
import { authThrottled } from '../metrics/index.ts';

/**
 * Failed authentications one client address may make in {@link FAILURE_WINDOW_SECONDS}, unless
 * `PAYSYNC_AUTH_FAILURES_PER_MINUTE` says otherwise.
 */
export const FAILURES_ALLOWED = 5;
/** The window the failures are counted in. */
export const FAILURE_WINDOW_SECONDS = 60;

/**
 * Throttles guessing: after `allowed` (5) failed authentications from one client
 * address within a minute (a wrong bearer token, login, session or scrape token), that address
 * gets 429 with `Retry-After` until the window ends, right token or not. The client address is
 * Express's `request.ip`: the socket's, or `X-Forwarded-For`'s when `PAYSYNC_TRUST_PROXY` says
 * the proxy in front may be believed. Counted in memory, per process: the ops port is one
 * process. The first refusal of a window is logged, with the address and the surface only.
 */
export class AuthThrottle {
  readonly #failures: RateLimiterMemory;
  readonly #allowed: number;
  readonly #logger: Logger;

  constructor(logger: Logger, allowed: number = FAILURES_ALLOWED) {
    this.#logger = logger;
    this.#allowed = allowed;
    this.#failures = new RateLimiterMemory({ points: allowed, duration: FAILURE_WINDOW_SECONDS });
  }

  /**
   * True when the client may try (fewer failures than allowed this window); otherwise answers
   * 429 with `Retry-After` (through `refuse`, so each surface words its own page) and counts it.
   */
  async admits(
    request: Request,
    response: Response,
    surface: string,
    refuse: (response: Response) => void,
  ): Promise<boolean> {
    const state = await this.#failures.get(clientOf(request));
    if (!state || state.consumedPoints < this.#allowed) return true;
    authThrottled.inc({ surface });
    response.setHeader('Retry-After', String(Math.max(1, Math.ceil(state.msBeforeNext / 1000))));
    refuse(response);
    return false;
  }

  /** Counts a failed authentication of the request's client; logs once when it reaches the limit. */
  async failed(request: Request, surface: string): Promise<void> {
    const client = clientOf(request);
    const state = await this.#failures.penalty(client, 1);
    if (state.consumedPoints === this.#allowed) {
      this.#logger.warn(
        { client, surface, retryAfterSeconds: Math.ceil(state.msBeforeNext / 1000) },
        `${this.#allowed} failed authentications from ${client} within ${FAILURE_WINDOW_SECONDS} s: its requests get 429 until the window ends`,
      );
    }
  }
}

function clientOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}
