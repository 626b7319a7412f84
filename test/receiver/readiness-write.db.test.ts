import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createDatabase, type DatabaseHandle } from '../../src/db/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createQueues, createRedisConnection } from '../../src/queues/index.ts';
import { createReceiverServer } from '../../src/receiver/index.ts';
import { closedPort, runCli } from '../support/run-cli.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { cleanupsAfterEach } from '../support/cleanups.ts';

const cleanups = cleanupsAfterEach();

/**
 * A migrated database, and a URL to it that reads but refuses every write: an immutable
 * SQLite file (chmod is not enough for root, so root also sets the immutable attribute), or a
 * PostgreSQL session whose transactions are read-only.
 */
async function readOnlyDatabase(): Promise<{ database: TestDatabase; url: string }> {
  const database = await freshDatabase();
  cleanups.push(() => database.cleanup());
  if (testDialect() === 'postgres') {
    const url = new URL(database.url);
    url.searchParams.set(
      'options',
      `${url.searchParams.get('options') ?? ''} -c default_transaction_read_only=on`.trim(),
    );
    return { database, url: url.toString() };
  }
  const file = database.url.slice('sqlite:'.length);
  // Closing checkpoints the WAL, so the file holds everything before it is frozen.
  await database.close();
  chmodSync(file, 0o444);
  if (process.getuid?.() === 0) execFileSync('chattr', ['+i', file]);
  cleanups.push(async () => {
    if (process.getuid?.() === 0) execFileSync('chattr', ['-i', file]);
    chmodSync(file, 0o644);
  });
  return { database, url: database.url };
}

describe(`7.D15: readiness checks that the inbox can be written (${testDialect()})`, () => {
  it('/readyz answers 503 naming the inbox while the database refuses writes, as webhooks do', async () => {
    const { url } = await readOnlyDatabase();
    const handle: DatabaseHandle = createDatabase(url);
    cleanups.push(() => handle.close());
    const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
    const prefix = uniqueRedisPrefix('readiness-write');
    const queues = createQueues({ connection: redis, prefix });
    cleanups.push(async () => {
      await queues.close();
      redis.disconnect();
      await deleteRedisPrefix(prefix);
    });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    const server = createReceiverServer({
      db: handle.db,
      queues,
      redis,
      config: loadConfig({ PAYSYNC_WEBHOOK_SCHEME: 'none' }),
      logger: createLogger({ level: 'silent', pretty: false }),
      now: () => new Date(),
      port: 0,
      host: '127.0.0.1',
    });
    await server.start();
    cleanups.push(() => server.stop());

    const webhook = await fetch(`${server.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceId: 'tr_abcdefghijklmnopqrstuvwx', resourceType: 'transfer' }),
    });
    expect(webhook.status).toBe(503);

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { ready: boolean; reasons: string[] };
    expect(body.ready).toBe(false);
    expect(body.reasons).toEqual([
      expect.stringMatching(/^inbox cannot be written \(.+\): .*PAYSYNC_DATABASE_URL/),
    ]);
  });

  it('`paysync serve` refuses to start on a database it cannot write, in one line', async () => {
    const { url } = await readOnlyDatabase();
    const result = await runCli(['serve'], {
      env: {
        PAYSYNC_DATABASE_URL: url,
        PAYSYNC_WEBHOOK_SCHEME: 'none',
        PAYSYNC_PORT: String(await closedPort()),
        PAYSYNC_QUEUE_PREFIX: uniqueRedisPrefix('readiness-serve'),
      },
      // It refuses within seconds; the margin is for a loaded CI machine, where the CLI's start
      // alone (loading and compiling its modules) has taken 6 to 20 s.
      timeoutMs: 45_000,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^paysync serve: cannot write to .+ → .*PAYSYNC_DATABASE_URL/);
    expect(result.stdout).not.toContain('receiver listening');
  });
});
