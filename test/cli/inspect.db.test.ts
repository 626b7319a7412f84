import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// The first `list` and the first `show` run as real processes, to prove the boundary; the other
// checks of output and exit codes run the same program in this process (issue 39).
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { fillLedger, type FilledLedger } from './support/filled-ledger.ts';

let database: TestDatabase;
let filled: FilledLedger;
let env: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabase();
  filled = await fillLedger(database.db);
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
});
afterAll(async () => {
  await database?.cleanup();
});

/** The table row whose first cell is `id`, split on runs of two or more spaces. */
function rowOf(table: string, id: string): string[] {
  const line = table.split('\n').find((l) => l.startsWith(`${id} `));
  expect(line, `a row for ${id} in:\n${table}`).toBeDefined();
  return line!.split(/\s{2,}/);
}

describe('paysync list', () => {
  it('prints one table row per transfer: id, reference, status, minor and human amounts, updated, failure', async () => {
    const result = await runCli(['list', 'transfers'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^ID\s+REFERENCE\s+STATUS\s+AMOUNT \(minor units\)\s+AMOUNT\s+UPDATED \(UTC\)\s+FAILURE/,
    );
    const failed = rowOf(result.stdout, filled.failedTransferId);
    expect(failed.slice(1, 5)).toEqual(['cli-test-failed', 'failed', '150000 XOF', '150,000 XOF']);
    expect(failed[5]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(failed[6]).toBe('recipient_not_found');
    expect(rowOf(result.stdout, filled.successfulTransferId).slice(2, 5)).toEqual([
      'successful',
      '250000 XOF',
      '250,000 XOF',
    ]);
    expect(result.stdout).toContain('2 transfers, newest change first.');
  });

  it('shows cents as a decimal beside the minor units, and filters by status', async () => {
    const intents = await runCliInProcess(['list', 'intents', '--status', 'successful'], { env });
    expect(intents.code).toBe(0);
    expect(rowOf(intents.stdout, filled.intentId)).toContain('12345 EUR');
    expect(rowOf(intents.stdout, filled.intentId)).toContain('123.45 EUR');

    const failedOnly = await runCliInProcess(['list', 'transfers', '--status', 'failed'], { env });
    expect(failedOnly.code).toBe(0);
    expect(failedOnly.stdout).toContain(filled.failedTransferId);
    expect(failedOnly.stdout).not.toContain(filled.successfulTransferId);
  });

  it('--json prints an array of mirror records without the raw service JSON', async () => {
    const result = await runCliInProcess(['list', 'refunds', '--json'], { env });
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      kind: 'refund',
      id: filled.refundId,
      status: 'successful',
      amount: 250_000,
      currency: 'XOF',
      originalId: filled.successfulTransferId,
    });
    expect(records[0]).not.toHaveProperty('raw');
  });

  it('--since in the future matches nothing and says so, exit 0', async () => {
    const result = await runCliInProcess(['list', 'transfers', '--since', '2999-01-01'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No transfers with updated since 2999-01-01T00:00:00.000Z');
  });

  it.each([
    [['list', 'payouts'], 'use intents, transfers or refunds'],
    [['list', 'transfers', '--status', 'settled'], 'created, successful, pending, failed'],
    [
      ['list', 'transfers', '--since', 'last tuesday'],
      'a duration back from now (90s, 30m, 6h, 7d)',
    ],
    [['list', 'transfers', '--limit', '0'], '--limit must be a whole number from 1'],
  ])('%j is refused with exit 2 and says what is accepted', async (args, accepted) => {
    const result = await runCliInProcess(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(accepted);
    expect(result.stdout).toBe('');
  });
});

describe('paysync show', () => {
  it('explains a failed transfer: failure code, no money moved, history via webhooks, inbox events', async () => {
    const result = await runCli(['show', filled.failedTransferId], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`Transfer ${filled.failedTransferId}: failed`);
    expect(out).toContain('recipient_not_found');
    expect(out).toMatch(/No money moved: failed transfers post nothing/);
    expect(out).toContain('Journal lines (0)');
    expect(out).toMatch(/\(first seen\)\s+created\s+\S+\s+\S+\s+webhook\s+\d+/);
    expect(out).toMatch(/created\s+failed\s+\S+\s+\S+\s+webhook\s+\d+/);
    expect(out).toContain('Inbox events (2)');
    expect(out).toMatch(/transfer\.updated\s+processed/);
  });

  it('prints the journal lines of a settled transfer as Dr/Cr with minor and human amounts', async () => {
    const result = await runCliInProcess(['show', filled.successfulTransferId], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/payouts:recipients\s+Dr\s+250000\s+XOF\s+250,000 XOF/);
    expect(result.stdout).toMatch(/expenses:transfer-fees\s+Dr\s+2500\s+XOF\s+2,500 XOF/);
    expect(result.stdout).toMatch(/service:transfer\s+Cr\s+252500\s+XOF\s+252,500 XOF/);
  });

  it('--json gives the record, history, journals and inbox events', async () => {
    const result = await runCliInProcess(['show', filled.failedTransferId, '--json'], { env });
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout) as {
      record: Record<string, unknown>;
      history: { fromStatus: string | null; toStatus: string; via: string; inboxId: number }[];
      journals: unknown[];
      inboxEvents: { inboxId: number; eventType: string }[];
    };
    expect(view.record).toMatchObject({
      id: filled.failedTransferId,
      status: 'failed',
      failureCode: 'recipient_not_found',
    });
    expect(view.history.map((h) => [h.fromStatus, h.toStatus, h.via])).toEqual([
      [null, 'created', 'webhook'],
      ['created', 'failed', 'webhook'],
    ]);
    expect(view.journals).toEqual([]);
    expect(view.inboxEvents.map((e) => e.inboxId)).toEqual(filled.failedTransferInboxIds);
  });

  it('an unknown id exits 1 with one line naming the id and the database', async () => {
    const result = await runCliInProcess(['show', 'tr_doesNotExist0000000000'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'no payment intent, transfer or refund with id tr_doesNotExist0000000000 in ',
    );
    expect(lines[0]).toContain('run `paysync sweep` or check the id');
  });

  it('something that is not an id exits 2', async () => {
    const result = await runCliInProcess(['show', 'hello'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a resource id');
  });
});
