import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type RunningDaemon } from '../../src/daemon/index.ts';
import { createDatabase } from '../../src/db/index.ts';
import { createLogger } from '../../src/logger.ts';
import { generateWebhookSecret } from '../../src/sim/index.ts';
import {
  slackHeaders,
  startHttpCollector,
  type HttpCollector,
} from '../alerts/support/sink-servers.ts';
import { signedEvent } from './support/receiver-fixture.ts';
import { parseScrape, seriesOf } from '../support/scrape.ts';
import { canMountSmallDisk, sqliteOnSmallDisk } from '../support/small-disk.ts';
import {
  freshDatabase,
  testDialect,
  testPostgresUrl,
  type TestDatabase,
} from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';
import { cleanupsAfterEach } from '../support/cleanups.ts';

const cleanups = cleanupsAfterEach();

/** A database the test can make refuse writes while paysync runs on it, and take them again. */
interface BreakableDatabase {
  readonly url: string;
  refuseWrites(): Promise<void>;
  takeWrites(): Promise<void>;
  /** What the database says when it refuses, as `/readyz` and the alert quote it. */
  readonly refusal: RegExp;
}

/**
 * SQLite: the migrated file on a tmpfs of its own, which the test fills (a real ENOSPC, which
 * SQLite answers SQLITE_FULL). PostgreSQL: the shared test server cannot be filled, so paysync
 * connects as a role of the test's own whose INSERT/UPDATE/DELETE rights on the schema the test
 * revokes and grants again (the server refuses every write, as a full or read-only one does).
 */
async function breakableDatabase(database: TestDatabase): Promise<BreakableDatabase> {
  if (testDialect() === 'sqlite') {
    const { url, disk } = await sqliteOnSmallDisk(database, cleanups);
    return {
      url,
      refuseWrites: async () => disk.fill(),
      takeWrites: async () => disk.free(),
      refusal: /SQLITE_FULL: database or disk is full/,
    };
  }
  const role = `writer_${randomBytes(5).toString('hex')}`;
  const schema = sql.id(database.schema!);
  const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
  cleanups.push(async () => {
    await sql`drop owned by ${sql.id(role)}`.execute(admin.db).catch(() => undefined);
    await sql`drop role if exists ${sql.id(role)}`.execute(admin.db).catch(() => undefined);
    await admin.close();
  });
  await sql`create role ${sql.id(role)} login`.execute(admin.db);
  await sql`grant usage on schema ${schema} to ${sql.id(role)}`.execute(admin.db);
  await sql`grant all on all tables in schema ${schema} to ${sql.id(role)}`.execute(admin.db);
  await sql`grant all on all sequences in schema ${schema} to ${sql.id(role)}`.execute(admin.db);
  const url = new URL(testPostgresUrl());
  url.username = role;
  url.searchParams.set('options', `-c search_path=${database.schema!}`);
  return {
    url: url.toString(),
    refuseWrites: async () => {
      await sql`revoke insert, update, delete on all tables in schema ${schema} from ${sql.id(role)}`.execute(
        admin.db,
      );
    },
    takeWrites: async () => {
      await sql`grant insert, update, delete on all tables in schema ${schema} to ${sql.id(role)}`.execute(
        admin.db,
      );
    },
    refusal: /42501: permission denied for table/,
  };
}

const sqliteWithoutMount = testDialect() === 'sqlite' && !canMountSmallDisk();

describe(`issue 42.6: a database that cannot be written (${testDialect()})`, () => {
  it.skipIf(sqliteWithoutMount)(
    '/readyz says so, one database_unwritable alert goes out on Slack, and one Resolved once writes succeed again',
    async () => {
      const database = await freshDatabase();
      cleanups.push(() => database.cleanup());
      const breakable = await breakableDatabase(database);
      const slack: HttpCollector = await startHttpCollector();
      cleanups.push(() => slack.close());
      const prefix = uniqueRedisPrefix('unwritable');
      cleanups.push(() => deleteRedisPrefix(prefix).then(() => undefined));
      const secret = generateWebhookSecret();
      const daemon: RunningDaemon = await startDaemon({
        config: loadConfig({
          PAYSYNC_API_KEY: 'key_unused_by_the_receiver_0123456789',
          PAYSYNC_MERCHANT_ID: 'mch_unwritable',
          PAYSYNC_DATABASE_URL: breakable.url,
          PAYSYNC_REDIS_URL: TEST_REDIS_URL,
          PAYSYNC_WEBHOOK_SECRET: secret,
          PAYSYNC_ALERT_SLACK_URL: slack.url,
        }),
        logger: createLogger({
          level: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
          pretty: false,
        }),
        roles: ['receiver'],
        queuePrefix: prefix,
        port: 0,
        host: '127.0.0.1',
        databaseWriteCheckMs: 100,
      });
      cleanups.push(() => daemon.stop().then(() => undefined));
      const receiver = daemon.receiver!.url;
      const post = () => {
        const event = signedEvent(secret);
        return fetch(`${receiver}/webhooks`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...event.headers },
          body: event.body,
        });
      };
      const readyz = async () => {
        const response = await fetch(`${receiver}/readyz`);
        return {
          status: response.status,
          body: (await response.json()) as { ready: boolean; reasons: string[] },
        };
      };
      const unwritableGauge = async () => {
        const text = await (await fetch(`${daemon.opsServer!.url}/metrics`)).text();
        return seriesOf(parseScrape(text), 'paysync_database_unwritable', {})?.value;
      };

      expect((await post()).status).toBe(202);
      expect((await readyz()).status).toBe(200);
      expect(await unwritableGauge()).toBe(0);

      await breakable.refuseWrites();
      const refused = await post();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      await until(async () => (await readyz()).status === 503, {
        message: '/readyz to answer 503',
      });
      const notReady = await readyz();
      expect(notReady.body.ready).toBe(false);
      expect(notReady.body.reasons).toEqual([
        expect.stringMatching(/^inbox cannot be written \(.+\): .*PAYSYNC_DATABASE_URL/),
      ]);
      expect(notReady.body.reasons[0]).toMatch(breakable.refusal);
      if (testDialect() === 'sqlite') expect(notReady.body.reasons[0]).toMatch(/free space/);

      await until(() => slack.received.length > 0, { message: 'Slack to hear of it' });
      expect(await unwritableGauge()).toBe(1);
      // Dozens of further probes fail, and webhooks with them: still one message.
      for (let i = 0; i < 5; i += 1) expect((await post()).status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(slackHeaders(slack)).toEqual([':rotating_light: The database cannot take writes']);
      const firing = JSON.stringify(JSON.parse(slack.received[0]!.body));
      expect(firing).toContain('`database_unwritable`');
      expect(firing).toMatch(breakable.refusal);
      expect(firing).toContain('503');

      await breakable.takeWrites();
      await until(async () => (await readyz()).status === 200, {
        message: '/readyz to answer 200 again',
      });
      await until(() => slack.received.length === 2, { message: 'Slack to hear it resolved' });
      expect(slackHeaders(slack)[1]).toBe(
        ':white_check_mark: Resolved: The database cannot take writes',
      );
      expect(await unwritableGauge()).toBe(0);
      expect((await post()).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(slack.received).toHaveLength(2);
    },
  );
});
