import { sql, type Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/index.ts';
import { probeInboxWrite } from '../inbox/index.ts';
import { readCredentialFailure, recordWriteProbe } from '../service-state/index.ts';
import type { Clock } from '../lifecycle/index.ts';
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
  /** Stamps the write probe. */
  readonly now: Clock;
  readonly extraChecks?: readonly ReadinessCheck[];
  /** Per check. @defaultValue 1000 */
  readonly timeoutMs?: number;
  /** How long one write probe's answer is reused. @defaultValue 2000 */
  readonly writeProbeCacheMs?: number;
}

const DEFAULT_WRITE_PROBE_CACHE_MS = 2000;

/** The last write probe per database, so a busy `/readyz` poller does not write each time. */
const lastWriteProbe = new WeakMap<
  Kysely<Database>,
  { readonly at: number; readonly outcome: Promise<string | undefined> }
>();

/** What to do about a database that refuses writes, by what it said. */
function unwritableAdvice(reason: string): string {
  if (/SQLITE_FULL|disk is full|No space left|ENOSPC|could not extend|53100/i.test(reason)) {
    return "free space on the database's disk, or point PAYSYNC_DATABASE_URL at a writable one";
  }
  return 'make the database writable, or point PAYSYNC_DATABASE_URL at a writable one';
}

export interface WriteProbeOptions {
  readonly now: Clock;
  /** @defaultValue 1000 */
  readonly timeoutMs?: number;
  /** @defaultValue 2000 */
  readonly cacheMs?: number;
}

/**
 * Why the database cannot take writes, or undefined: the answer of a probe at most `cacheMs`
 * old. The probe runs an UPDATE of the inbox that matches no row, then commits one real write
 * (the `write_probe` row of service_state): a read-only SQLite file, a PostgreSQL standby or
 * read-only transaction or a revoked privilege on the inbox fail the first, and a full disk,
 * which lets an UPDATE that changes nothing through, fails the second as it fails an inbox
 * commit. A database that answers reads but refuses
 * writes would otherwise report ready while every webhook gets 503.
 */
export function inboxWriteProblem(
  db: Kysely<Database>,
  options: WriteProbeOptions,
): Promise<string | undefined> {
  const started = Date.now();
  const cached = lastWriteProbe.get(db);
  if (cached && started - cached.at < (options.cacheMs ?? DEFAULT_WRITE_PROBE_CACHE_MS)) {
    return cached.outcome;
  }
  const at = options.now().toISOString();
  // The inbox's no-op update, then one real commit: an update that matches no row changes
  // nothing, and gets through on a full disk where every real commit fails.
  const probe = probeInboxWrite(db).then(() => recordWriteProbe(db, at));
  const outcome = within(probe, options.timeoutMs ?? 1000, 'the database').then(
    () => undefined,
    (error: unknown) => {
      const reason = reasonOf(error);
      return `inbox cannot be written (${reason}): ${unwritableAdvice(reason)}`;
    },
  );
  lastWriteProbe.set(db, { at: started, outcome });
  return outcome;
}

/**
 * Ready means: the database answers, it takes writes (a probe, cached briefly),
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
    const unwritable = await inboxWriteProblem(deps.db, {
      now: deps.now,
      timeoutMs: ms,
      ...(deps.writeProbeCacheMs !== undefined ? { cacheMs: deps.writeProbeCacheMs } : {}),
    });
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
