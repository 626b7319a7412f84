import { randomBytes } from 'node:crypto';
import type { Clock } from '../lifecycle/index.ts';

export interface DashboardSessionOptions {
  /** A session ends after this long without a request. @defaultValue 30 minutes */
  readonly idleMs?: number;
  /** A session ends this long after its login. @defaultValue 12 hours */
  readonly maxMs?: number;
  /** @defaultValue the machine's clock */
  readonly now?: Clock;
}

interface Session {
  readonly token: string;
  readonly openedAt: number;
  lastSeenAt: number;
}

/**
 * Dashboard sessions, held server-side in this process's memory: the cookie carries a random
 * id, never the token nor anything derived from it. A session ends after `idleMs` without a
 * request, `maxMs` after its login, at logout, and when the process restarts (the ops port is
 * one process; a second `serve` process has sessions of its own). Rotating a token out ends its
 * sessions at the next restart, which rotation needs anyway.
 */
export class DashboardSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;

  constructor(options: DashboardSessionOptions = {}) {
    this.#idleMs = options.idleMs ?? 30 * 60_000;
    this.#maxMs = options.maxMs ?? 12 * 3_600_000;
    const clock = options.now;
    this.#now = clock ? () => clock().getTime() : () => Date.now();
  }

  /** Opens a session for a token the caller has accepted; returns the cookie's value. */
  open(token: string): string {
    this.#sweep();
    const id = randomBytes(32).toString('base64url');
    const at = this.#now();
    this.#sessions.set(id, { token, openedAt: at, lastSeenAt: at });
    return id;
  }

  /** The token a live session was opened with (and the session's idle time restarts), or undefined. */
  tokenOf(id: string | undefined): string | undefined {
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    const at = this.#now();
    if (at - session.lastSeenAt > this.#idleMs || at - session.openedAt > this.#maxMs) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.lastSeenAt = at;
    return session.token;
  }

  /** Ends a session (logout); its cookie opens nothing any more. */
  close(id: string | undefined): void {
    if (id) this.#sessions.delete(id);
  }

  /** Drops expired sessions, so the map stays as small as the live sessions. */
  #sweep(): void {
    const at = this.#now();
    for (const [id, session] of this.#sessions) {
      if (at - session.lastSeenAt > this.#idleMs || at - session.openedAt > this.#maxMs) {
        this.#sessions.delete(id);
      }
    }
  }
}
