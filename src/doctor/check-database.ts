import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'kysely';
import {
  createDatabase,
  dialectOf,
  isPermissionDenied,
  migrationStatus,
  pendingMigrationsHint,
  POSTGRES_RIGHTS_DOC,
} from '../db/index.ts';
import { failed, passed, type CheckResult } from './check-result.ts';
import { reasonOf } from '../error-reason.ts';

/** The database opens, answers, and has every migration applied. Creates nothing. */
export async function checkDatabase(databaseUrl: string): Promise<CheckResult> {
  if (dialectOf(databaseUrl) === 'sqlite') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !existsSync(resolve(file))) {
      return failed(
        'database',
        `${resolve(file)} does not exist yet`,
        'run `paysync migrate` to create it, or set PAYSYNC_DATABASE_URL',
      );
    }
  }
  let handle;
  try {
    handle = createDatabase(databaseUrl, { poolSize: 1 });
  } catch (error) {
    return failed(
      'database',
      reasonOf(error),
      'set PAYSYNC_DATABASE_URL to a database file paysync can open',
    );
  }
  try {
    await sql`select 1`.execute(handle.db);
    const { applied, pending } = await migrationStatus(handle.db);
    if (pending.length > 0) {
      return failed(
        'database',
        `${handle.displayUrl}: ${pending.length} migration(s) pending (${pending.join(', ')})`,
        await pendingMigrationsHint(handle.db),
      );
    }
    return passed('database', `${handle.displayUrl}, ${applied.length} migration(s) applied`);
  } catch (error) {
    return failed(
      'database',
      `cannot use ${handle.displayUrl}: ${reasonOf(error)}`,
      isPermissionDenied(error)
        ? `grant this role its rights on paysync's schema and tables (${POSTGRES_RIGHTS_DOC})`
        : 'check that the database is running and PAYSYNC_DATABASE_URL is right',
    );
  } finally {
    await handle.close().catch(() => undefined);
  }
}
