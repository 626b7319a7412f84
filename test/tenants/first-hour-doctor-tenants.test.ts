import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { runCli } from '../support/run-cli.ts';
import { TEST_REDIS_URL, deleteRedisPrefix, uniqueRedisPrefix } from '../support/test-redis.ts';

/** Issue 40.5: `doctor --json` over a tenants file words each check as doctor does alone. */
const dir = mkdtempSync(join(tmpdir(), 'paysync-doctor-tenants-'));
const prefix = uniqueRedisPrefix('doctor-tenants');
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ merchantId: 'mch_doc' });
  writeFileSync(join(dir, 'key'), `${sim.credentials.apiKey}\n`);
  writeFileSync(join(dir, 'whsec'), `${generateWebhookSecret()}\n`);
  const tenant = (name: string, index: number) => `  - name: ${name}
    merchant_id: mch_doc
    environment: ${index === 0 ? 'sandbox' : 'live'}
    service_url: ${sim.url}
    api_key: { file: ./key }
    webhook_secret: { file: ./whsec }
    database: { sqlite: ./books-${index}.db }
`;
  writeFileSync(join(dir, 'tenants.yaml'), `tenants:\n${tenant('one', 0)}${tenant('two', 1)}`);
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
  await deleteRedisPrefix(prefix);
});

describe('paysync doctor --json with several tenants', () => {
  it("gives every tenant's checks a status (ok, warn, fail) and a message", async () => {
    const result = await runCli(['doctor', '--json'], {
      env: {
        PAYSYNC_TENANTS_FILE: 'tenants.yaml',
        PAYSYNC_REDIS_URL: TEST_REDIS_URL,
        PAYSYNC_QUEUE_PREFIX: prefix,
      },
      cwd: dir,
      timeoutMs: 60_000,
    });
    // Never migrated: each tenant's database check fails, so doctor exits 1.
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const tenants = JSON.parse(result.stdout) as {
      tenant: string;
      checks: { name: string; status: string; message: string }[];
    }[];
    expect(tenants.map((t) => t.tenant)).toEqual(['one', 'two']);
    for (const tenant of tenants) {
      expect(tenant.checks.find((c) => c.name === 'config')).toMatchObject({ status: 'ok' });
      expect(tenant.checks.find((c) => c.name === 'database')).toMatchObject({ status: 'fail' });
      expect(tenant.checks.find((c) => c.name === 'webhooks')).toMatchObject({ status: 'warn' });
      for (const check of tenant.checks) expect(typeof check.message).toBe('string');
    }
  });
});
