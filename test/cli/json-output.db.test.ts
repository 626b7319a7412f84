import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertRuntime, raiseAlert } from '../../src/alerts/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { stuckTransfer } from '../alerts/support/alert-harness.ts';
import { closeCliBooks, openCliBooks, type CliBooks } from '../support/cli-books.ts';
import { closedPort } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Issue 40.11: `--json` wherever a script might read. Each command prints one JSON document on
 * stdout and nothing else; its failures are the same one line on stderr, with the same exit
 * code, as without --json. Every command runs in this process, on one set of books.
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const prefix = uniqueRedisPrefix('json-output');
const dir = mkdtempSync(join(tmpdir(), 'paysync-json-'));
let books: CliBooks;
let env: Record<string, string>;

beforeAll(async () => {
  books = await openCliBooks(
    { freezeClock: true, startAt: new Date(Date.now() - 3_600_000) },
    {
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_UPSTREAM_MAX_RETRIES: '0',
      PAYSYNC_UPSTREAM_RPS: '500',
      PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
      PAYSYNC_EXPORT_FORMATS: 'csv',
    },
  );
  env = books.env;
  for (let i = 0; i < 3; i += 1) {
    books.sim.control.createTransfer({
      amount: 1000 + i,
      reference: `json-${i}`,
      destination: { number: `+2217712345${i}811` },
    });
  }
});
afterAll(async () => {
  await closeCliBooks(books ?? {});
  await deleteRedisPrefix(prefix);
});

function run(args: readonly string[], extraEnv: Record<string, string> = {}) {
  return runCliInProcess(args, { env: { ...env, ...extraEnv } });
}

/** Runs `args --json`, expects success and nothing on stderr, and returns the one document. */
async function json<T = Record<string, unknown>>(
  args: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<T> {
  const result = await run([...args, '--json'], extraEnv);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/**
 * A run cut short by a 429 storm on the transfer list: with --json the document still comes out
 * on stdout (the report of what ran), and the one line on stderr and exit 1 are as without it.
 */
async function throttled(args: readonly string[]) {
  books.sim.control.setFaults({ throttleRate: 1, operations: ['listTransfers'] });
  try {
    const human = await run(args);
    const asJson = await run([...args, '--json']);
    for (const result of [human, asJson]) {
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    return { human, asJson };
  } finally {
    books.sim.control.setFaults({ throttleRate: 0, operations: [] });
  }
}

/** The same failure with and without --json: one line on stderr, the same code, stdout empty. */
async function expectSameFailure(
  args: readonly string[],
  code: number,
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const human = await run(args, extraEnv);
  const asJson = await run([...args, '--json'], extraEnv);
  expect(human.code).toBe(code);
  expect(asJson.code).toBe(code);
  expect(asJson.stdout).toBe('');
  expect(asJson.stderr).toBe(human.stderr);
  expect(asJson.stderr.trim().split('\n')).toHaveLength(1);
  return asJson.stderr;
}

describe(`issue 40.11: --json for scripts, on ${testDialect()}`, () => {
  it('migrate --json: the database, nothing applied on migrated books, the latest migration', async () => {
    const document = await json<{
      database: string;
      applied: string[];
      migrations: number;
      latest: string | null;
    }>(['migrate']);
    expect(document.applied).toEqual([]);
    expect(document.migrations).toBeGreaterThan(0);
    expect(typeof document.latest).toBe('string');
    expect(document.database).toBeTruthy();

    const port = await closedPort();
    const unreachable =
      testDialect() === 'postgres'
        ? `postgres://postgres@127.0.0.1:${port}/test`
        : // A folder, which SQLite cannot open as a database file.
          `sqlite:${dir}`;
    const stderr = await expectSameFailure(['migrate'], 1, {
      PAYSYNC_DATABASE_URL: unreachable,
    });
    expect(stderr).toMatch(/^paysync migrate: cannot migrate /);
  });

  it('webhooks register --json and delete --json: the registration with its secret, then the deletion', async () => {
    const url = 'https://paysync.example.com/hooks';
    const registered = await json<{
      webhook: { id: string; url: string; secret?: string };
      secret: string | null;
      secretConfigured: boolean;
      duplicates: string[];
      warnings: string[];
    }>(['webhooks', 'register', '--url', url]);
    expect(registered.webhook).toMatchObject({ url });
    expect(registered.webhook.id).toMatch(/^wh_/);
    expect(registered.webhook.secret).toBeUndefined();
    expect(registered.secret).toMatch(/^whsec_/);
    expect(registered.secretConfigured).toBe(false);
    expect(registered.duplicates).toEqual([]);
    // The receiver's path is /webhooks by default: this URL's /hooks earns the warning.
    expect(registered.warnings).toEqual([expect.stringContaining('/webhooks')]);

    const again = await json<{ webhook: { id: string }; duplicates: string[] }>([
      'webhooks',
      'register',
      '--url',
      url,
    ]);
    expect(again.duplicates).toEqual([registered.webhook.id]);

    expect(await json(['webhooks', 'delete', registered.webhook.id])).toEqual({
      id: registered.webhook.id,
      deleted: true,
    });
    await json(['webhooks', 'delete', again.webhook.id]);

    await expectSameFailure(['webhooks', 'delete', registered.webhook.id], 1);
    await expectSameFailure(['webhooks', 'delete', 'nope'], 2);
    await expectSameFailure(['webhooks', 'register', '--url', 'ftp://x'], 2);
  });

  it('sweep --json: the outcome, the counts and each list, money in minor units', async () => {
    const document = await json<{
      outcome: string;
      runId: number;
      counts: { itemsSeen: number; itemsChanged: number };
      lists: {
        kind: string;
        from: string;
        to: string;
        checkpoint: string;
        tally: { seen: number; new: number; booked: Record<string, number> };
      }[];
    }>(['sweep', '--since', '2h']);
    expect(document.outcome).toBe('succeeded');
    expect(document.runId).toEqual(expect.any(Number));
    expect(document.counts).toMatchObject({ itemsSeen: 3, itemsChanged: 3 });
    const transfers = document.lists.find((list) => list.kind === 'transfers');
    expect(transfers?.tally).toMatchObject({ seen: 3, new: 3 });
    expect(transfers?.from).toMatch(ISO_MS);
    expect(transfers?.checkpoint).toMatch(ISO_MS);
    for (const amount of Object.values(transfers?.tally.booked ?? {})) {
      expect(Number.isInteger(amount)).toBe(true);
    }

    await expectSameFailure(['sweep', '--kind', 'nope'], 2);

    const { human, asJson } = await throttled(['sweep', '--kind', 'transfers']);
    expect(human.stderr).toMatch(/^paysync sweep: partial: transfers: .*429/);
    expect(asJson.stderr).toMatch(/^paysync sweep: partial: transfers: .*429/);
    const partial = JSON.parse(asJson.stdout) as {
      outcome: string;
      error: string;
      lists: { kind: string; cutShort?: string }[];
    };
    expect(partial.outcome).toBe('partial');
    expect(partial.error).toMatch(/429/);
    expect(partial.lists).toEqual([
      expect.objectContaining({ kind: 'transfers', cutShort: expect.stringMatching(/429/) }),
    ]);
  });

  it('backfill --json: this run and the whole backfill, no progress lines on stdout', async () => {
    // Fixed instants, so the failure's line is the same with and without --json.
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const document = await json<{
      dryRun: boolean;
      runId: number | null;
      total: { seen: number; unchanged: number };
      thisRun: { seen: number };
      pages: number;
      skippedWindows: number;
    }>(['backfill', '--from', from, '--to', to, '--kind', 'transfers']);
    expect(document.dryRun).toBe(false);
    expect(document.runId).toEqual(expect.any(Number));
    // The sweep above already booked them.
    expect(document.total).toMatchObject({ seen: 3, unchanged: 3 });
    expect(document.thisRun.seen).toBe(3);
    expect(document.pages).toBeGreaterThan(0);

    const dry = await json<{ dryRun: boolean; runId: number | null }>([
      'backfill',
      '--from',
      from,
      '--to',
      to,
      '--dry-run',
    ]);
    expect(dry).toMatchObject({ dryRun: true, runId: null });

    await expectSameFailure(['backfill', '--from', to, '--to', from], 2);

    const { human, asJson } = await throttled([
      'backfill',
      '--from',
      from,
      '--to',
      to,
      '--kind',
      'transfers',
      '--restart',
    ]);
    expect(human.stderr).toMatch(/^paysync backfill: cut short: .*429/);
    expect(asJson.stderr).toMatch(/^paysync backfill: cut short: .*429/);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      dryRun: false,
      cutShort: expect.stringMatching(/429/),
    });
  });

  it('replay --json: what matched and what was queued; a missing inbox id fails the same way', async () => {
    const document = await json(['replay', '--since', '1h']);
    expect(document).toEqual({
      since: expect.stringMatching(ISO_MS),
      dryRun: false,
      matched: 0,
      queued: 0,
      alreadyQueued: 0,
    });
    const dry = await json(['replay', '--since', '1h', '--dry-run']);
    expect(dry).toMatchObject({ dryRun: true, queued: 0 });

    const stderr = await expectSameFailure(['replay', '999999'], 1);
    expect(stderr).toContain('no inbox event with id 999999');
    await expectSameFailure(['replay'], 2);
  });

  it('close, export and reopen --json: the frozen month, the file written from it, the reopening', async () => {
    const closed = await json<{
      period: string;
      environment: string;
      window: { from: string; to: string };
      closedAt: string;
      forced: boolean;
      exports: { format: string; file: string; sha256: string; rows: number }[];
    }>(['close', '--period', '2026-01', '--force', '--reason', 'no activity that month']);
    expect(closed).toMatchObject({
      period: '2026-01',
      environment: 'sandbox',
      window: { from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z' },
      forced: true,
    });
    expect(closed.closedAt).toMatch(ISO_MS);
    expect(closed.exports).toEqual([
      expect.objectContaining({
        format: 'csv',
        file: expect.stringMatching(/paysync-2026-01\.csv$/),
      }),
    ]);
    const stderr = await expectSameFailure(
      ['close', '--period', '2026-01', '--force', '--reason', 'again'],
      1,
    );
    expect(stderr).toMatch(/^paysync close: /);
    await expectSameFailure(['close', '--period', '2026-13'], 2);

    const frozenOut = join(dir, 'january.csv');
    const frozen = await json<Record<string, unknown>>([
      'export',
      '--from',
      '2026-01-01',
      '--to',
      '2026-02-01',
      '--out',
      frozenOut,
    ]);
    expect(frozen).toMatchObject({
      file: frozenOut,
      format: 'csv',
      journals: null,
      sha256: closed.exports[0]!.sha256,
      frozenFile: closed.exports[0]!.file,
    });

    const out = join(dir, 'today.csv');
    const today = new Date().toISOString().slice(0, 10);
    const written = await json<{ rows: number; journals: number; sha256: string }>([
      'export',
      '--from',
      '2d',
      '--to',
      `${today}T23:59:59Z`,
      '--out',
      out,
    ]);
    expect(written).toMatchObject({ file: out, format: 'csv', frozenFile: null });
    expect(written.journals).toEqual(expect.any(Number));
    expect(written.sha256).toBe(createHash('sha256').update(readFileSync(out)).digest('hex'));
    await expectSameFailure(
      ['export', '--from', '2026-01-02', '--to', '2026-01-01', '--out', out],
      2,
    );
    // The export itself would fill stdout: --json needs a file.
    const toStdout = await run(['export', '--from', '2d', '--to', '1d', '--json']);
    expect(toStdout.code).toBe(2);
    expect(toStdout.stdout).toBe('');
    expect(toStdout.stderr).toMatch(/--json .* needs --out <file>/);

    const reopened = await json([
      'reopen',
      '--period',
      '2026-01',
      '--reason',
      ' late bank statement ',
    ]);
    expect(reopened).toEqual({
      period: '2026-01',
      environment: 'sandbox',
      reopenedAt: expect.stringMatching(ISO_MS),
      reason: 'late bank statement',
    });
    await expectSameFailure(['reopen', '--period', '2026-01', '--reason', 'twice'], 1);
  });

  it('alerts ack, resolve and test --json: the alert as it now stands; each sink and whether it delivered', async () => {
    const runtime = createAlertRuntime(loadConfig({}).alerts, createLogger({ level: 'silent' }), {
      now: () => new Date(),
      environment: 'sandbox',
    });
    const raised = await raiseAlert(
      { db: books.database.db, alerts: runtime },
      stuckTransfer('tr_json1'),
    );
    await runtime.close();
    const id = String(raised.alert.id);

    const acked = await json(['alerts', 'ack', id, '--note', 'on it', '--for', '4h']);
    expect(acked).toMatchObject({
      id: raised.alert.id,
      status: 'acked',
      ackNote: 'on it',
      ackedAt: expect.stringMatching(ISO_MS),
      snoozedUntil: expect.stringMatching(ISO_MS),
    });
    await expectSameFailure(['alerts', 'ack', id, '--for', '99d'], 2);

    const resolved = await json(['alerts', 'resolve', id, '--note', 'paid']);
    expect(resolved).toMatchObject({
      id: raised.alert.id,
      status: 'resolved',
      resolvedAt: expect.stringMatching(ISO_MS),
    });
    const stderr = await expectSameFailure(['alerts', 'resolve', id], 1);
    expect(stderr).toContain(`alert ${id} was resolved`);

    // The log sink's line goes to stderr under --json, so stdout is the document alone.
    const logOnly = await run(['alerts', 'test', '--json'], { PAYSYNC_LOG_LEVEL: 'info' });
    expect(logOnly.code).toBe(0);
    expect(JSON.parse(logOnly.stdout)).toEqual({
      ok: true,
      sinks: [{ sink: 'log', delivered: true }],
    });

    const port = await closedPort();
    const slack = { PAYSYNC_ALERT_SLACK_URL: `http://127.0.0.1:${port}/hook` };
    const human = await run(['alerts', 'test', '--sink', 'slack'], slack);
    const failed = await run(['alerts', 'test', '--sink', 'slack', '--json'], slack);
    expect(human.code).toBe(1);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(human.stderr);
    expect(failed.stderr).toMatch(/^slack: not delivered: /);
    expect(JSON.parse(failed.stdout)).toEqual({
      ok: false,
      sinks: [{ sink: 'slack', delivered: false, error: expect.any(String) }],
    });
    await expectSameFailure(['alerts', 'test', '--sink', 'pager'], 2);
  });
});
