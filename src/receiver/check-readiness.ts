import { sql, type Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/index.ts';
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
}

/**
 * Ready means: the database answers, Redis answers, and the service has not rejected our
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
