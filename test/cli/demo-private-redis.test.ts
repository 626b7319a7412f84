import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort, PAYSYNC_BIN } from '../support/run-cli.ts';
import { until } from '../support/until.ts';

const dir = mkdtempSync(join(tmpdir(), 'paysync-demo-redis-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_') && key !== 'NODE_OPTIONS')
      env[key] = value;
  }
  return { ...env, ...extra };
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

describe('paysync demo without a Redis running, redis-server installed (child process)', () => {
  it('--duration 30 starts a private Redis, shows the dashboard URL that answers during the run, and exits 0', async () => {
    // Never the shared Redis: the configured URL is a port nothing listens on.
    const port = await closedPort();
    const child = spawn(
      process.execPath,
      [PAYSYNC_BIN, 'demo', '--duration', '30', '--interval', '5'],
      {
        cwd: dir,
        env: cleanEnvironment({ PAYSYNC_REDIS_URL: `redis://127.0.0.1:${port}` }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);

    const dashboard = await until(
      () =>
        /dashboard (http:\/\/127\.0\.0\.1:\d+\/) · token (\S+)/.exec(stdout) ??
        (child.exitCode === null ? null : 'exited'),
      { message: 'the demo to print its dashboard URL', timeoutMs: 60_000 },
    ).then(
      (found) => (found === 'exited' ? null : found),
      () => null,
    );
    expect(dashboard, `stdout:\n${stdout}\nstderr:\n${stderr}`).not.toBeNull();
    const privateRedis =
      /started a private one at (redis:\/\/127\.0\.0\.1:\d+) \(nothing on disk, stopped on exit\)/.exec(
        stdout,
      );
    expect(stdout).toContain(`no Redis answers at redis://127.0.0.1:${port}`);
    expect(privateRedis).not.toBeNull();
    expect(await answers(privateRedis![1]!)).toBe(true);
    expect(dashboard![2]!.length).toBeGreaterThanOrEqual(32);

    // The dashboard's URL answers while the demo runs.
    const health = await fetch(`${dashboard![1]}healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const metrics = await fetch(`${dashboard![1]}metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('paysync_queue_jobs{queue="ingest",state="waiting"}');

    const code = await exited;
    clearTimeout(timer);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('stopped (30 s elapsed)');
    expect(stdout).toMatch(/^Today's verdict \(\d{4}-\d{2}-\d{2}, UTC\): [A-Z_]+$/m);
    // Its failed transfers were alerted, and its snapshots (every 10 s, after the opening one)
    // found the service's balances equal to the ledger's.
    expect(stdout).toMatch(/^Alerts open: [1-9]\d*/m);
    expect(stdout).toMatch(/^Balance drift: none \(/m);
    // Stopped on exit.
    expect(await answers(privateRedis![1]!)).toBe(false);
  }, 120_000);
});
