import { readCredentialFailure } from '../service-state/index.ts';
import { failed, passed, type CheckResult } from './check-result.ts';
import { readExistingDatabase } from './read-existing-database.ts';

/**
 * Whether a worker recorded that the service refused our credentials (syncing is then paused
 * for every worker). Undefined when the database cannot be read: the database check says why.
 */
export async function checkCredentialRecord(databaseUrl: string): Promise<CheckResult | undefined> {
  return readExistingDatabase(databaseUrl, async (db) => {
    const failure = await readCredentialFailure(db);
    if (!failure) return passed('syncing', 'no credential refusal on record');
    return failed(
      'syncing',
      `paused: the service refused the credentials at ${failure.at} (${failure.reason} on ${failure.operation})`,
      'fix PAYSYNC_API_KEY / PAYSYNC_MERCHANT_ID / PAYSYNC_ENVIRONMENT, then restart `paysync work` (it checks them and resumes)',
    );
  });
}
