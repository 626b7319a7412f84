import { autovacuumSettings, dialectOf, POSTGRES_RIGHTS_DOC } from '../db/index.ts';
import { passed, warned, type CheckResult } from './check-result.ts';
import { readExistingDatabase } from './read-existing-database.ts';

/**
 * PostgreSQL's upkeep of paysync's tables: autovacuum on for the server (with track_counts, which
 * it goes by) and not turned off on any table of paysync's schema. Without it a table's planner
 * statistics go stale after a burst of rows and a query may read every row of it: the relay's
 * claim took 26 s a call so (docs/reliability.md). A warning, not a failure: paysync still works.
 * Undefined on SQLite, or when the database cannot be read (the database check says why).
 */
export async function checkUpkeep(databaseUrl: string): Promise<CheckResult | undefined> {
  if (dialectOf(databaseUrl) !== 'postgres') return undefined;
  const settings = await readExistingDatabase(databaseUrl, autovacuumSettings);
  if (!settings) return undefined;
  const problems: string[] = [];
  const fixes: string[] = [];
  const serverOff = [
    ...(settings.autovacuum ? [] : ['autovacuum']),
    ...(settings.trackCounts ? [] : ['track_counts']),
  ];
  if (serverOff.length > 0) {
    problems.push(`${serverOff.join(' and ')} off on this PostgreSQL server`);
    fixes.push(
      `set ${serverOff.map((name) => `${name} = on`).join(' and ')} in postgresql.conf (or the provider's parameters) and reload`,
    );
  }
  const tables = settings.tablesWithout;
  if (tables.length > 0) {
    problems.push(
      `autovacuum_enabled = false on ${tables.length} table${tables.length === 1 ? '' : 's'} of schema ${settings.schema} (${tables.join(', ')})`,
    );
    fixes.push(
      `ALTER TABLE … RESET (autovacuum_enabled) on ${tables.length === 1 ? 'it' : 'each'}`,
    );
  }
  if (problems.length === 0) {
    const where = settings.schema ? ` and every table of schema ${settings.schema}` : '';
    return passed('upkeep', `autovacuum on for the server${where}`);
  }
  return warned(
    'upkeep',
    `${problems.join('; ')}: planner statistics go stale after a burst of rows, and queries may then read whole tables`,
    `${fixes.join('; ')} (${POSTGRES_RIGHTS_DOC})`,
  );
}
