import { sql, type Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/database.ts';
import { probeInboxWrite } from '../inbox/index.ts';
import { readCredentialFailure } from '../service-state/index.ts';
import { reasonOf } from '../error-reason.ts';

/** One more thing `/readyz` must see working; resolves to why not, or undefined when fine. */
export type ReadinessCheck = () => Promise<string | undefined>;

export interface Readiness {
  readonly ready: boolean;
  /** One sentence per problem, each saying what to do; empty when ready. */
  readonly reasons: readonly string[];
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ReadinessDependencies {
  readonly db: Kysely<Database>;
  readonly redis: Redis;
  readonly extraChecks?: readonly ReadinessCheck[];
  /** Per check. @defaultValue 1000 */
  readonly timeoutMs?: number;
  /** How long one inbox write probe's answer is reused. @defaultValue 2000 */
  readonly writeProbeCacheMs?: number;
}

const DEFAULT_WRITE_PROBE_CACHE_MS = 2000;

/** The last write probe per database, so a busy `/readyz` poller does not take the write lock each time. */
const lastWriteProbe = new WeakMap<
  Kysely<Database>,
  { readonly at: number; readonly outcome: Promise<string | undefined> }
>();

/**
 * Why the inbox cannot be written, or undefined: the answer of a probe at most
 * `writeProbeCacheMs` old. A database that answers reads but refuses writes (a read-only
 * SQLite file, a PostgreSQL standby or read-only transaction, a revoked privilege) would
 * otherwise report ready while every webhook gets 503.
 */
export function inboxWriteProblem(
  db: Kysely<Database>,
  timeoutMs = 1000,
  cacheMs = DEFAULT_WRITE_PROBE_CACHE_MS,
): Promise<string | undefined> {
  const now = Date.now();
  const cached = lastWriteProbe.get(db);
  if (cached && now - cached.at < cacheMs) return cached.outcome;
  const outcome = within(probeInboxWrite(db), timeoutMs, 'the database').then(
    () => undefined,
    (error: unknown) =>
      `inbox cannot be written (${reasonOf(error)}): make the database writable, or point PAYSYNC_DATABASE_URL at a writable one`,
  );
  lastWriteProbe.set(db, { at: now, outcome });
  return outcome;
}

/**
 * Ready means: the database answers, the inbox can be written (a probe, cached briefly),
 * Redis answers, and the service has not rejected our
 * credentials (a worker records that after a 401; syncing is paused until it is fixed).
 * The checks run side by side, each bounded, so a dead dependency answers 503 quickly.
 */
export async function checkReadiness(deps: ReadinessDependencies): Promise<Readiness> {
  const ms = deps.timeoutMs ?? 1000;
  const database = async () => {
    try {
      await within(sql`select 1`.execute(deps.db), ms, 'the database');
    } catch (error) {
      return `database does not answer (${reasonOf(error)}): check PAYSYNC_DATABASE_URL and that it runs`;
    }
    const unwritable = await inboxWriteProblem(deps.db, ms, deps.writeProbeCacheMs);
    if (unwritable) return unwritable;
    try {
      const failure = await within(readCredentialFailure(deps.db), ms, 'the database');
      if (failure) {
        return `service rejected the credentials at ${failure.at} (${failure.reason}): fix PAYSYNC_API_KEY/PAYSYNC_MERCHANT_ID`;
      }
    } catch (error) {
      return `cannot read the service state (${reasonOf(error)}): run \`paysync migrate\``;
    }
    return undefined;
  };
  const redis = async () => {
    try {
      await within(deps.redis.ping(), ms, 'Redis');
      return undefined;
    } catch (error) {
      return `Redis does not answer (${reasonOf(error)}): check PAYSYNC_REDIS_URL and that it runs`;
    }
  };
  const results = await Promise.all([
    database(),
    redis(),
    ...(deps.extraChecks ?? []).map((c) => c()),
  ]);
  const reasons = results.filter((reason): reason is string => reason !== undefined);
  return { ready: reasons.length === 0, reasons };
}
