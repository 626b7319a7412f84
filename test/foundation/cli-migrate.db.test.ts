import { afterEach, describe, expect, it } from 'vitest';
import { migrationStatus } from '../../src/db/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

describe(`paysync migrate on ${testDialect()}`, () => {
  it('applies the migrations, prints them, and a second run applies nothing and says so', async () => {
    database = await freshDatabase({ migrate: false });
    const env = { PAYSYNC_DATABASE_URL: database.url };
    // In this process (issue 39); the refusal below, and foundation/cli's migrate, are real ones.
    const first = await runCliInProcess(['migrate'], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^applied 0001_webhook_inbox$/m);
    const second = await runCliInProcess(['migrate'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^nothing to apply: .* is up to date/m);
    expect(second.stdout).not.toContain('applied 0001');
    expect((await migrationStatus(database.db)).pending).toEqual([]);
  });

  it('fails with one line and exit 1 when the database cannot be reached', async () => {
    const url =
      testDialect() === 'postgres'
        ? 'postgres://postgres@127.0.0.1:1/test'
        : 'sqlite:/dev/null/not-a-folder/db.sqlite';
    const result = await runCli(['migrate'], { env: { PAYSYNC_DATABASE_URL: url } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^paysync migrate: cannot migrate .*→ check PAYSYNC_DATABASE_URL/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
