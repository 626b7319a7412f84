import { afterEach, describe, expect, it } from 'vitest';
import { createAlertRuntime, raiseAlert } from '../../src/alerts/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { stuckTransfer } from './support/alert-harness.ts';

/** Issue 40.10: `alerts list`'s SENT column, `-` included, is explained under the table. */
let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

describe('paysync alerts list', () => {
  it('explains its SENT column, and what - means, under the table', async () => {
    database = await freshDatabase();
    const runtime = createAlertRuntime(loadConfig({}).alerts, createLogger({ level: 'silent' }), {
      now: () => new Date(),
      environment: 'sandbox',
    });
    await raiseAlert({ db: database.db, alerts: runtime }, stuckTransfer('tr_legend1'));
    const listed = await runCliInProcess(['alerts', 'list'], {
      env: { PAYSYNC_DATABASE_URL: database.url },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ open +- +Transfer tr_legend1/);
    expect(listed.stdout).toContain(
      'SENT: the latest delivery to each sink (ok, pending, failed×attempts); - means none: only the log has it',
    );
  });
});
