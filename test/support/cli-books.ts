import { migrateToLatest } from '../../src/db/index.ts';
import {
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../src/sim/index.ts';
import { freshDatabase, type TestDatabase } from './test-database.ts';

/** Books for CLI tests: a migrated fresh database, a simulator, and the env a command needs. */
export interface CliBooks {
  readonly database: TestDatabase;
  readonly sim: RunningSimulator;
  readonly env: Record<string, string>;
}

/** Opens them; `extraEnv` adds to (or overrides) the env. Close with {@link closeCliBooks}. */
export async function openCliBooks(
  simOptions: SimulatorOptions,
  extraEnv: Record<string, string> = {},
): Promise<CliBooks> {
  const database = await freshDatabase();
  await migrateToLatest(database.db);
  const sim = await startSimulator(simOptions);
  const env = {
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  return { database, sim, env };
}

export async function closeCliBooks(books: Partial<CliBooks>): Promise<void> {
  await books.sim?.stop();
  await books.database?.cleanup();
}

/**
 * A simulator an hour in the past, its clock still, with 2,500,000 XOF on the transfer account:
 * the books of the balance tests.
 */
export function fundedSimulator(): SimulatorOptions {
  return {
    freezeClock: true,
    startAt: new Date(Date.now() - 3_600_000),
    initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 2_500_000 }],
  };
}
