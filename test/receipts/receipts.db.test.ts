import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDiscrepancies } from '../../src/ledger/index.ts';
import { addToOutbox, openOutboxEntries } from '../../src/outbox/index.ts';
import {
  archiveReceipt,
  explainMissingReceipt,
  fetchReceipt,
  fetchReceipts,
  receiptFilePath,
  receiptsFor,
  type ReceiptDependencies,
  type ReceiptRequest,
} from '../../src/receipts/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { upstreamRequestsTotal } from '../../src/upstream/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';

let context: SyncContext;
let dir: string;
let deps: ReceiptDependencies;
beforeEach(async () => {
  context = await createSyncContext();
  dir = mkdtempSync(join(tmpdir(), 'paysync-receipts-'));
  deps = {
    db: context.database.db,
    upstream: context.deps.upstream,
    dir,
    now: () => new Date(),
    logger: pino({ level: 'silent' }),
  };
});
afterEach(async () => {
  await context.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function settledTransfer(status: 'successful' | 'failed' = 'successful'): string {
  const transfer = context.sim.control.createTransfer({
    amount: 5000,
    destination: { number: status === 'failed' ? '+221770009901' : '+221770001111' },
  });
  context.sim.control.settle(transfer.id, status);
  return transfer.id;
}

async function receiptFetches(): Promise<number> {
  const metric = await upstreamRequestsTotal.get();
  return metric.values
    .filter((v) => v.labels.operation === 'getReceiptHtml')
    .reduce((sum, v) => sum + v.value, 0);
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The outbox row a sync wrote for this resource's receipt, as the consumer would get it. */
async function receiptRow(id: string) {
  const [row] = await openOutboxEntries(context.database.db, {
    kind: 'receipt',
    dedupeKeyPrefix: `receipt:transfer:${id}:`,
  });
  return row!;
}

describe(`receipts on ${testDialect()}`, () => {
  it('archives the receipt of a synced transfer content-addressed, once per outbox row', async () => {
    const id = settledTransfer('failed');
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const row = await receiptRow(id);
    expect(row.payload).toEqual({ kind: 'transfer', id, status: 'failed' });
    const before = await receiptFetches();
    const result = await fetchReceipt(deps, row.payload as unknown as ReceiptRequest, row.id);
    expect(result.outcome).toBe('archived');
    const [stored] = await receiptsFor(context.database.db, 'transfer', id);
    const file = readFileSync(receiptFilePath(dir, stored!.sha256));
    expect(sha256(file)).toBe(stored!.sha256);
    expect(stored!.size).toBe(file.length);
    expect(file.toString()).toContain(id);
    expect(readdirSync(dir)).toEqual([`${stored!.sha256}.html`]);

    // The same row handed out again: nothing fetched, nothing added.
    const again = await fetchReceipt(deps, row.payload as unknown as ReceiptRequest, row.id);
    expect(again.outcome).toBe('already_done');
    expect((await receiptFetches()) - before).toBe(1);
    expect(await openOutboxEntries(context.database.db, { kind: 'receipt' })).toEqual([]);
  });

  it('a receipt that answers 409 twice is archived on the third try, each try a later outbox row', async () => {
    const id = settledTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    context.sim.control.injectErrors({ status: 409, operationId: 'getReceiptHtml', count: 2 });
    const start = Date.now();
    let clock = start;
    const timed = { ...deps, now: () => new Date(clock) };
    const outcomes: string[] = [];
    const due: string[] = [];
    for (let i = 0; i < 3; i++) {
      const row = await receiptRow(id);
      due.push(row.availableAt);
      clock = Math.max(clock, Date.parse(row.availableAt));
      const result = await fetchReceipt(timed, row.payload as unknown as ReceiptRequest, row.id);
      outcomes.push(result.outcome);
    }
    expect(outcomes).toEqual(['retry_later', 'retry_later', 'archived']);
    // Back-off: the first retry a minute later, the second five minutes after that.
    expect(Date.parse(due[1]!) - start).toBe(60_000);
    expect(Date.parse(due[2]!) - Date.parse(due[1]!)).toBe(5 * 60_000);
    expect(await receiptsFor(context.database.db, 'transfer', id)).toHaveLength(1);
    expect(await openDiscrepancies(context.database.db)).toEqual([]);
  });

  it('409 for a whole day records receipt_unavailable, with an alert in the outbox', async () => {
    const id = settledTransfer();
    context.sim.control.injectErrors({ status: 409, operationId: 'getReceiptHtml', count: 50 });
    const { id: outboxId } = await addToOutbox(context.database.db, {
      createdAt: new Date().toISOString(),
      kind: 'receipt',
      payload: { kind: 'transfer', id, status: 'successful' },
    });
    let clock = Date.now();
    const timed = { ...deps, now: () => new Date(clock) };
    let result = await fetchReceipt(
      timed,
      { kind: 'transfer', id, status: 'successful' },
      outboxId,
    );
    let tries = 1;
    while (result.outcome === 'retry_later') {
      const [row] = await openOutboxEntries(context.database.db, { kind: 'receipt' });
      clock = Date.parse(row!.availableAt);
      result = await fetchReceipt(timed, row!.payload as unknown as ReceiptRequest, row!.id);
      tries += 1;
    }
    expect(result.outcome).toBe('discrepancy');
    expect(tries).toBeGreaterThan(5);
    const [discrepancy] = await openDiscrepancies(context.database.db);
    expect(discrepancy).toMatchObject({ kind: 'receipt_unavailable', resourceId: id });
    const alerts = await openOutboxEntries(context.database.db, { kind: 'alert' });
    expect(alerts.map((a) => a.payload.discrepancyKind)).toEqual(['receipt_unavailable']);
    expect(await openOutboxEntries(context.database.db, { kind: 'receipt' })).toEqual([]);
  });

  it("archives a batch's receipts in one transaction: one row refused, none written; each then goes alone", async () => {
    const ids = [settledTransfer(), settledTransfer(), settledTransfer(), settledTransfer()];
    for (const id of ids)
      await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const rows = await Promise.all(ids.map((id) => receiptRow(id)));
    const refused = rows[2]!.id;
    const { db } = context.database;
    // The database refuses to stamp one row, as a failing disk or a crash would.
    if (testDialect() === 'postgres') {
      await sql`create function refuse_one() returns trigger language plpgsql as $$
        begin raise exception 'simulated failure of one receipt'; end $$`.execute(db);
      await sql`create trigger refuse_one before update of consumed_at on outbox
        for each row when (new.consumed_at is not null and old.id = ${sql.lit(refused)})
        execute function refuse_one()`.execute(db);
    } else {
      await sql`create trigger refuse_one before update of consumed_at on outbox
        when new.consumed_at is not null and old.id = ${sql.lit(refused)}
        begin select raise(abort, 'simulated failure of one receipt'); end`.execute(db);
    }
    const batch = rows.map((row) => ({
      request: row.payload as unknown as ReceiptRequest,
      outboxId: row.id,
    }));
    const failed = await fetchReceipts(deps, batch);
    expect(failed.map((result) => 'error' in result)).toEqual([true, true, true, true]);
    expect(String((failed[0] as { error: Error }).error.message)).toContain(
      'simulated failure of one receipt',
    );
    for (const id of ids) expect(await receiptsFor(db, 'transfer', id)).toEqual([]);
    expect(await openOutboxEntries(db, { kind: 'receipt' })).toHaveLength(4);

    // Alone, as the batch hands them back: the three others are archived, the refused one fails.
    const alone = await Promise.allSettled(
      batch.map(({ request, outboxId }) => fetchReceipt(deps, request, outboxId)),
    );
    expect(alone.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((await openOutboxEntries(db, { kind: 'receipt' })).map((row) => row.id)).toEqual([
      refused,
    ]);
    // Once the database takes it, the batch path archives the last one.
    await sql`drop trigger refuse_one${sql.raw(testDialect() === 'postgres' ? ' on outbox' : '')}`.execute(
      db,
    );
    const last = await fetchReceipts(deps, [batch[2]!]);
    expect(last.map((result) => ('outcome' in result ? result.outcome.outcome : 'error'))).toEqual([
      'archived',
    ]);
    for (const id of ids) expect(await receiptsFor(db, 'transfer', id)).toHaveLength(1);
    expect(await openOutboxEntries(db, { kind: 'receipt' })).toEqual([]);
  });

  it('a 404 records receipt_not_found at once', async () => {
    const result = await fetchReceipt(deps, {
      kind: 'transfer',
      id: 'tr_000000000000000000000000',
    });
    expect(result.outcome).toBe('discrepancy');
    const [discrepancy] = await openDiscrepancies(context.database.db);
    expect(discrepancy).toMatchObject({
      kind: 'receipt_not_found',
      resourceKind: 'transfer',
      resourceId: 'tr_000000000000000000000000',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says why a settled item has no receipt: pending retry, then a 404 discrepancy', async () => {
    const db = context.database.db;
    const id = settledTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    expect((await explainMissingReceipt(db, 'transfer', id)).reason).toBe('pending');
    context.sim.control.injectErrors({ status: 409, operationId: 'getReceiptHtml', count: 1 });
    const first = await receiptRow(id);
    const retry = await fetchReceipt(deps, first.payload as unknown as ReceiptRequest, first.id);
    expect(retry.outcome).toBe('retry_later');
    const pending = await explainMissingReceipt(db, 'transfer', id);
    expect(pending.message).toContain(
      `try 2 is due at ${(retry as { nextAttemptAt: string }).nextAttemptAt}`,
    );
    context.sim.control.injectErrors({ status: 404, operationId: 'getReceiptHtml', count: 1 });
    const second = await receiptRow(id);
    const gone = await fetchReceipt(deps, second.payload as unknown as ReceiptRequest, second.id);
    expect(gone.outcome).toBe('discrepancy');
    const explained = await explainMissingReceipt(db, 'transfer', id);
    expect(explained.reason).toBe('receipt_not_found');
    expect(explained.message).toContain('the service answered 404');
    expect(
      (await explainMissingReceipt(db, 'transfer', 'tr_000000000000000000000001')).reason,
    ).toBe('unknown_resource');
  });

  it('never rewrites archived HTML: an identical refetch adds nothing, a changed one is kept beside', async () => {
    const db = context.database.db;
    const base = { resourceKind: 'transfer' as const, resourceId: 'tr_abc' };
    const first = await archiveReceipt(db, dir, {
      ...base,
      html: '<p>v1</p>',
      fetchedAt: '2030-01-01T00:00:00.000Z',
    });
    const same = await archiveReceipt(db, dir, {
      ...base,
      html: '<p>v1</p>',
      fetchedAt: '2030-01-02T00:00:00.000Z',
    });
    const changed = await archiveReceipt(db, dir, {
      ...base,
      html: '<p>v2</p>',
      fetchedAt: '2030-01-03T00:00:00.000Z',
    });
    expect([first.isNew, same.isNew, changed.isNew]).toEqual([true, false, true]);
    const rows = await receiptsFor(db, 'transfer', 'tr_abc');
    expect(rows.map((r) => [r.sha256, r.fetched_at])).toEqual([
      [sha256('<p>v1</p>'), '2030-01-01T00:00:00.000Z'],
      [sha256('<p>v2</p>'), '2030-01-03T00:00:00.000Z'],
    ]);
    expect(readFileSync(first.path, 'utf8')).toBe('<p>v1</p>');
    expect(readFileSync(changed.path, 'utf8')).toBe('<p>v2</p>');
    expect(readdirSync(dir).sort()).toEqual(
      [`${sha256('<p>v1</p>')}.html`, `${sha256('<p>v2</p>')}.html`].sort(),
    );
  });

  it('`paysync receipt` writes the newest receipt, says why there is none, and `receipts backfill` fetches the missing', async () => {
    const id = settledTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    // Settled "before this feature": its outbox row is gone.
    await context.database.db.deleteFrom('outbox').execute();
    const env = {
      PAYSYNC_DATABASE_URL: context.database.url,
      PAYSYNC_RECEIPTS_DIR: dir,
      PAYSYNC_UPSTREAM_URL: context.sim.url,
      PAYSYNC_API_KEY: context.sim.credentials.apiKey,
      PAYSYNC_MERCHANT_ID: context.sim.credentials.merchantId,
    };
    // Real processes for the refusals (exit 1 and 2); the rest runs in this process (issue 39).
    const missing = await runCli(['receipt', id], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no receipt for transfer ${id} (successful)`);
    expect(missing.stderr).toContain('paysync receipts backfill');

    const backfill = await runCliInProcess(['receipts', 'backfill', '--since', '30d'], { env });
    expect(backfill.stdout).toContain('1 settled item(s) without a receipt: 1 archived');
    expect(backfill.code).toBe(0);

    const out = join(dir, '..', `receipt-${id}.html`);
    const written = await runCliInProcess(['receipt', id, '--out', out], { env });
    expect(written.code).toBe(0);
    const [stored] = await receiptsFor(context.database.db, 'transfer', id);
    expect(written.stdout).toContain(`wrote the receipt of ${id} (sha256 ${stored!.sha256}`);
    expect(sha256(readFileSync(out))).toBe(stored!.sha256);
    rmSync(out, { force: true });

    const json = await runCliInProcess(['receipt', id, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      kind: 'transfer',
      id,
      newest: { sha256: stored!.sha256 },
      versions: [{ sha256: stored!.sha256 }],
    });

    const bad = await runCli(['receipt', '1234'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a payment intent or transfer id');
  }, 60_000);
});
