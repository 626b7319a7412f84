import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDiscrepancies } from '../../src/ledger/index.ts';
import { receiptFilePath } from '../../src/receipts/index.ts';
import { testDialect } from '../support/test-database.ts';
import {
  createDaemonFixture,
  queueBacklog,
  type DaemonFixture,
} from '../processing/support/daemon-fixture.ts';
import { describeState, waitForCatchUp, type EndState } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { until } from '../support/until.ts';

/**
 * Acceptance 6 of the follow-ups issue: a 500-item run through the real receiver, queues and
 * workers; every payment intent and transfer that settled (successful or failed) ends with
 * exactly one archived receipt, whose file hashes to its name.
 */
describe(`a receipt for every settled item of a 500-item run, on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let receiptsDir: string;
  let state: EndState;
  let openReceiptRows = -1;

  beforeAll(async () => {
    receiptsDir = mkdtempSync(join(tmpdir(), 'paysync-run-receipts-'));
    fixture = await createDaemonFixture({
      sim: { faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2 } },
      env: { PAYSYNC_RECEIPTS_DIR: receiptsDir, PAYSYNC_WORKER_CONCURRENCY: '8' },
    });
    await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    await fixture.registerWebhook();
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 200,
      paymentIntents: 200,
      refunds: 70,
      paymentRefunds: 30,
      backlog: () => queueBacklog(fixture.daemon!),
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 180_000);
    await until(
      async () =>
        (openReceiptRows = (
          await fixture.database.db
            .selectFrom('outbox')
            .select('id')
            .where('kind', '=', 'receipt')
            .where('consumed_at', 'is', null)
            .execute()
        ).length),
      { accept: (open) => open === 0, message: 'every receipt row consumed', timeoutMs: 60_000 },
    ).catch(() => undefined); // the test below names how many are still open
  }, 420_000);

  afterAll(async () => {
    await fixture?.cleanup();
    rmSync(receiptsDir, { recursive: true, force: true });
  });

  it('caught up with the simulator', () => {
    expect(state.items).toBe(500);
    expect(state.statusMismatches, JSON.stringify(describeState(state))).toEqual([]);
    expect(openReceiptRows).toBe(0);
  });

  it('archived exactly one receipt per settled payment intent and transfer, hashing to its file name', async () => {
    const settled = fixture.sim.control
      .groundTruth()
      .items.filter(
        (item) =>
          (item.kind === 'payment_intent' || item.kind === 'transfer') &&
          (item.status === 'successful' || item.status === 'failed'),
      );
    expect(settled.length).toBeGreaterThan(300);
    const rows = await fixture.database.db.selectFrom('receipts').selectAll().execute();
    const byResource = new Map<string, typeof rows>();
    for (const row of rows) {
      const key = `${row.resource_kind} ${row.resource_id}`;
      byResource.set(key, [...(byResource.get(key) ?? []), row]);
    }
    const problems: string[] = [];
    for (const item of settled) {
      const found = byResource.get(`${item.kind} ${item.id}`) ?? [];
      if (found.length !== 1)
        problems.push(`${item.kind} ${item.id} (${item.status}): ${found.length} receipts`);
    }
    expect(problems).toEqual([]);
    // Nothing archived for an item that did not settle.
    expect(rows.length).toBe(settled.length);
    const mismatched = rows.filter((row) => {
      const bytes = readFileSync(receiptFilePath(receiptsDir, row.sha256));
      return (
        createHash('sha256').update(bytes).digest('hex') !== row.sha256 ||
        bytes.length !== Number(row.size)
      );
    });
    expect(mismatched).toEqual([]);
    expect(readdirSync(receiptsDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const receiptDiscrepancies = (
      await openDiscrepancies(fixture.database.db, { limit: 10_000 })
    ).filter((d) => d.kind.startsWith('receipt_'));
    expect(receiptDiscrepancies).toEqual([]);
  });
});
