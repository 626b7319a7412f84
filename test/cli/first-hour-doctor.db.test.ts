import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScheduledRun } from '../../src/runs/index.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { closeCliBooks, openCliBooks } from '../support/cli-books.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

/** Issue 40.5: doctor on a fresh database says no runs yet, and speaks JSON. */
let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;

interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'warn' | 'fail'; message: string; hint?: string }[];
}

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks({ freezeClock: true }));
});
afterAll(async () => closeCliBooks({ database, sim }));

describe(`paysync doctor on a fresh database on ${testDialect()}`, () => {
  it('says "no runs yet" instead of claiming the scheduled tasks ran on time', async () => {
    const result = await runCliInProcess(['doctor'], { env });
    expect(result.stdout).toMatch(/^⚠ runs +no runs yet \(\d+ scheduled tasks enabled\)/m);
    expect(result.stdout).not.toContain('on time');
    expect(result.code).toBe(0);
  });

  it('--json prints one document with each check, and a warning keeps exit code 0', async () => {
    const result = await runCliInProcess(['doctor', '--json'], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.ok).toBe(true);
    expect(report.checks.map((check) => check.name)).toEqual(
      expect.arrayContaining(['config', 'database', 'redis', 'runs']),
    );
    const runs = report.checks.find((check) => check.name === 'runs');
    expect(runs).toMatchObject({ status: 'warn' });
    expect(runs!.message).toMatch(/^no runs yet/);
    expect(report.checks.find((check) => check.name === 'database')).toMatchObject({
      status: 'ok',
    });
  });

  it('once a task has run, says which are on time and which have no run yet', async () => {
    await recordScheduledRun(
      {
        db: database.db,
        logger: pino({ level: 'silent' }),
        staleRunAfterMs: 60_000,
        now: () => new Date(),
      },
      { task: 'sweep', slot: 'first-hour' },
      async () => 1,
    );
    const result = await runCliInProcess(['doctor'], { env });
    expect(result.stdout).toMatch(/^✔ runs +1 scheduled task on time, \d+ with no run yet \(/m);
    expect(result.stdout).not.toContain('no runs yet');
  });

  it('warns while the service has no webhook for this receiver, then names the one registered', async () => {
    const before = await runCliInProcess(['doctor'], { env });
    expect(before.stdout).toMatch(
      /^⚠ webhooks +none of the 0 webhook\(s\) registered at the service delivers to a URL ending in \/webhooks.* → register this receiver: paysync webhooks register --url /m,
    );
    expect(before.code).toBe(0);

    const url = 'http://127.0.0.1:8080/webhooks';
    const registered = await runCliInProcess(['webhooks', 'register', '--url', url], { env });
    expect(registered.code).toBe(0);
    const after = await runCliInProcess(['doctor'], { env });
    expect(after.stdout).toMatch(
      /^✔ webhooks +registered at the service for http:\/\/127\.0\.0\.1:8080\/webhooks$/m,
    );

    await runCliInProcess(['webhooks', 'register', '--url', url], { env });
    const twice = await runCliInProcess(['doctor', '--json'], { env });
    const webhooks = (JSON.parse(twice.stdout) as DoctorJson).checks.find(
      (check) => check.name === 'webhooks',
    );
    expect(webhooks).toMatchObject({ status: 'warn' });
    expect(webhooks!.message).toContain('is registered 2 times');
    expect(webhooks!.hint).toMatch(
      /^delete the extra registration\(s\): paysync webhooks delete wh_/,
    );
  });

  it('--json keeps exit code 1 when a check fails, the document still on stdout', async () => {
    const result = await runCliInProcess(['doctor', '--json'], {
      env: { ...env, PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9' },
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.ok).toBe(false);
    const failing = report.checks.filter((check) => check.status === 'fail');
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((check) => typeof check.hint === 'string')).toBe(true);
  });
});
