import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import { canMountSmallDisk, sqliteOnSmallDisk } from '../support/small-disk.ts';
import { freshDatabase, testDialect } from '../support/test-database.ts';
import { cleanupsAfterEach } from '../support/cleanups.ts';

const cleanups = cleanupsAfterEach();

/**
 * A transaction whose commit meets a full disk fails with the disk's own error. SQLite has
 * already rolled the transaction back when its commit fails; kysely's own `rollback` then found
 * no transaction, and its "cannot rollback - no transaction is active" replaced SQLITE_FULL in
 * every log line and answer that quoted it.
 */
describe.skipIf(testDialect() !== 'sqlite' || !canMountSmallDisk())(
  'a transaction on a full SQLite disk',
  () => {
    it('fails with SQLITE_FULL, not with the rollback that follows', async () => {
      const database = await freshDatabase();
      cleanups.push(() => database.cleanup());
      const { url, disk } = await sqliteOnSmallDisk(database, cleanups);
      const handle = createDatabase(url);
      cleanups.push(() => handle.close());
      disk.fill();
      const failure = await handle.db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into service_state (key, value, updated_at) values ('k', ${'x'.repeat(200_000)}, '2026-11-29T00:00:00.000Z')`.execute(
            trx,
          );
        })
        .then(
          () => expect.fail('the transaction was expected to fail'),
          (error: unknown) => error as Error,
        );
      expect(failure.message).toMatch(/database or disk is full/);
      disk.free();
      // The connection is usable again once the disk has room.
      await sql`insert into service_state (key, value, updated_at) values ('k', 'v', '2026-11-29T00:00:00.000Z')`.execute(
        handle.db,
      );
    });
  },
);
