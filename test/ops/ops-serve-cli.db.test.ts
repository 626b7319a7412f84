import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, PAYSYNC_BIN, runCli } from '../support/run-cli.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { waitForHealth } from '../support/wait-for-health.ts';

let database: TestDatabase | undefined;
let prefix: string | undefined;
afterEach(async () => {
  await database?.cleanup();
  if (prefix) await deleteRedisPrefix(prefix);
  database = undefined;
  prefix = undefined;
});

/** Runs `paysync serve`, hands its receiver's and ops port's URLs to `check`, stops it; returns its output. */
async function serve(
  env: Record<string, string>,
  check: (url: string, opsUrl: string) => Promise<void>,
): Promise<string> {
  database = await freshDatabase();
  prefix = uniqueRedisPrefix('ops-serve');
  const port = await closedPort();
  const opsPort = await closedPort();
  const child = spawn(process.execPath, [PAYSYNC_BIN, 'serve'], {
    cwd: mkdtempSync(join(tmpdir(), 'paysync-ops-serve-')),
    env: {
      PATH: process.env.PATH,
      PAYSYNC_DATABASE_URL: database.url,
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_WEBHOOK_SCHEME: 'none',
      PAYSYNC_PORT: String(port),
      PAYSYNC_OPS_PORT: String(opsPort),
      PAYSYNC_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url);
    await check(url, `http://127.0.0.1:${opsPort}`);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  return output;
}

describe('paysync serve and the ops surfaces', () => {
  it('serves the ops API with a token, and says so in one line without leaking it', async () => {
    const token = 'serve-admin-token-51c0';
    const output = await serve({ PAYSYNC_ADMIN_TOKEN: token }, async (url, opsUrl) => {
      const ok = await fetch(`${opsUrl}/api/v1/transfers`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ data: [], nextCursor: null });
      expect((await fetch(`${opsUrl}/api/v1/transfers`)).status).toBe(401);
      expect((await fetch(`${opsUrl}/`)).status).toBe(401);
      expect((await fetch(`${opsUrl}/metrics`)).status).toBe(200);
      // The receiver's port: webhooks and health only, even with the token.
      const elsewhere = await fetch(`${url}/api/v1/transfers`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(elsewhere.status).toBe(404);
      for (const path of ['/', '/metrics', '/admin/queues', '/login']) {
        expect((await fetch(`${url}${path}`)).status, path).toBe(404);
      }
    });
    const lines = output.split('\n').filter((line) => line.includes('ops API and dashboard'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ops API and dashboard on (1 admin token)');
    expect(lines[0]).toContain('its /metrics moved here');
    expect(output).not.toContain(token);
  }, 40_000);

  it('without a token the routes do not exist, and start-up says so in one line', async () => {
    const output = await serve({}, async (url, opsUrl) => {
      for (const path of ['/api/v1/transfers', '/', '/admin/queues']) {
        expect((await fetch(`${url}${path}`)).status, path).toBe(404);
        expect((await fetch(`${opsUrl}${path}`)).status, path).toBe(404);
      }
    });
    const lines = output.split('\n').filter((line) => line.includes('ops API and dashboard'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ops API and dashboard are off: set PAYSYNC_ADMIN_TOKEN');
  }, 40_000);
});

describe('the session cookie behind https (issue 38.6)', () => {
  const token = 'serve-admin-token-https-8d2e';
  const login = (opsUrl: string) =>
    fetch(`${opsUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });

  it('PAYSYNC_OPS_HTTPS=true makes it Secure and __Host- prefixed', async () => {
    await serve({ PAYSYNC_ADMIN_TOKEN: token, PAYSYNC_OPS_HTTPS: 'true' }, async (_url, opsUrl) => {
      const answer = await login(opsUrl);
      expect(answer.status).toBe(303);
      const cookie = answer.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^__Host-paysync_ops=/);
      expect(cookie).toContain('; Secure');
    });
  }, 40_000);

  it('without it, the cookie stays plain (a plain-http dashboard must still work)', async () => {
    await serve({ PAYSYNC_ADMIN_TOKEN: token }, async (_url, opsUrl) => {
      const cookie = (await login(opsUrl)).headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^paysync_ops=/);
      expect(cookie).not.toContain('Secure');
    });
  }, 40_000);
});

describe('bind addresses (issue 38.9)', () => {
  /** The status of GET `url`, or `refused` when nothing listens on that address. */
  const reach = (url: string) =>
    fetch(url).then(
      (answer) => answer.status,
      (error: Error & { cause?: { code?: string } }) =>
        error.cause?.code === 'ECONNREFUSED' ? 'refused' : error.message,
    );
  /** The same port on another loopback address: reachable only from a socket bound to all. */
  const elsewhere = (url: string) => url.replace('//127.0.0.1:', '//127.0.0.2:');

  it('PAYSYNC_HOST=127.0.0.1 keeps the receiver on loopback; the ops port is there by default', async () => {
    await serve({ PAYSYNC_HOST: '127.0.0.1' }, async (url, opsUrl) => {
      expect(await reach(`${url}/healthz`)).toBe(200);
      expect(await reach(`${opsUrl}/healthz`)).toBe(200);
      expect(await reach(`${elsewhere(url)}/healthz`)).toBe('refused');
      expect(await reach(`${elsewhere(opsUrl)}/healthz`)).toBe('refused');
    });
  }, 40_000);

  it('by default the receiver listens on every address; PAYSYNC_OPS_HOST=0.0.0.0 opens the ops port too', async () => {
    await serve({ PAYSYNC_OPS_HOST: '0.0.0.0' }, async (url, opsUrl) => {
      expect(await reach(`${elsewhere(url)}/healthz`)).toBe(200);
      expect(await reach(`${elsewhere(opsUrl)}/healthz`)).toBe(200);
    });
  }, 40_000);
});

describe('tokens in live (issue 38)', () => {
  it('refuses to start with a 3-character admin token, naming the variable and how to make a good one', async () => {
    const result = await runCli(['start'], {
      env: {
        PAYSYNC_ENVIRONMENT: 'live',
        PAYSYNC_ADMIN_TOKEN: 'abc',
        PAYSYNC_UPSTREAM_URL: 'https://api.example.com',
        PAYSYNC_API_KEY: 'sk_live_0123456789abcdef0123456789abcdef',
        PAYSYNC_MERCHANT_ID: 'merchant-1',
        PAYSYNC_WEBHOOK_SECRET: 'whsec_0123456789abcdef0123456789abcdef',
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('PAYSYNC_ADMIN_TOKEN is too short for live');
    expect(result.stderr).toContain('openssl rand -hex 32');
    expect(result.stderr + result.stdout).not.toContain('"abc"');
  }, 40_000);
});
