import type { Executor } from '../db/index.ts';

const CREDENTIALS_KEY = 'upstream_credentials';

/** Why the service refused us, as recorded by the first job that saw it. */
export interface CredentialFailure {
  /** What the service said, e.g. `401 wrong_credentials`. Never holds the key itself. */
  readonly reason: string;
  /** The operation that was refused. */
  readonly operation: string;
  /** UTC ISO 8601 with milliseconds. */
  readonly at: string;
}

/**
 * Records that the service rejected the credentials. Workers pause on it; `/readyz` and
 * `doctor` report it until {@link clearCredentialFailure} runs after a successful call.
 */
export async function recordCredentialFailure(
  db: Executor,
  failure: CredentialFailure,
): Promise<void> {
  const value = JSON.stringify(failure);
  await db
    .insertInto('service_state')
    .values({ key: CREDENTIALS_KEY, value, updated_at: failure.at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: failure.at }))
    .execute();
}

export async function clearCredentialFailure(db: Executor): Promise<void> {
  await db.deleteFrom('service_state').where('key', '=', CREDENTIALS_KEY).execute();
}

export async function readCredentialFailure(db: Executor): Promise<CredentialFailure | undefined> {
  const row = await db
    .selectFrom('service_state')
    .select('value')
    .where('key', '=', CREDENTIALS_KEY)
    .executeTakeFirst();
  return row ? (JSON.parse(row.value) as CredentialFailure) : undefined;
}
