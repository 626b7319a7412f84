import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { closedPort, PAYSYNC_BIN, runCli } from '../support/run-cli.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { newWebhookSecret, signedEvent } from './support/receiver-fixture.ts';
import { waitForHealth } from '../support/wait-for-health.ts';

let database: TestDatabase | undefined;
let prefix: string | undefined;
afterEach(async () => {
  await database?.cleanup();
  if (prefix) await deleteRedisPrefix(prefix);
  database = undefined;
  prefix = undefined;
});

describe('paysync serve', () => {
  it('takes a signed webhook into the inbox and exits 0 on SIGTERM', async () => {
    database = await freshDatabase();
    prefix = uniqueRedisPrefix('serve');
    const secret = newWebhookSecret();
    const port = await closedPort();
    const child = spawn(process.execPath, [PAYSYNC_BIN, 'serve'], {
      cwd: mkdtempSync(join(tmpdir(), 'paysync-serve-')),
      env: {
        PATH: process.env.PATH,
        PAYSYNC_DATABASE_URL: database.url,
        PAYSYNC_REDIS_URL: TEST_REDIS_URL,
        PAYSYNC_QUEUE_PREFIX: prefix,
        PAYSYNC_WEBHOOK_SECRET: secret,
        PAYSYNC_PORT: String(port),
        // Its own ops port: other tests' processes may hold the default one.
        PAYSYNC_OPS_PORT: String(await closedPort()),
        PAYSYNC_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const event = signedEvent(secret);
      const response = await fetch(`${url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...event.headers },
        body: event.body,
      });
      expect(response.status).toBe(202);
      const { inboxId } = (await response.json()) as { inboxId: number };
      expect((await findInboxEvent(database.db, inboxId))?.eventId).toBe(event.id);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toContain('receiver listening');
    expect(output).not.toContain(secret);
  });

  it('refuses to start when Redis does not answer', async () => {
    database = await freshDatabase();
    const result = await runCli(['serve'], {
      env: {
        PAYSYNC_DATABASE_URL: database.url,
        PAYSYNC_WEBHOOK_SECRET: newWebhookSecret(),
        PAYSYNC_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^paysync serve: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(.*\) → start Redis/,
    );
  });
});
