import { afterEach, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/audit/index.ts';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';
import { testDialect } from '../support/test-database.ts';

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

/**
 * A payment link has no mirror, so its sync kept no record of what it covered and the auditor
 * could not prove its inbox rows. The sync now records its coverage like any item's.
 */
describe(`payment-link inbox rows are proven covered on ${testDialect()}`, () => {
  it('a synced link event audits clean; a link event closed without a sync does not', async () => {
    context = await createSyncContext();
    const ctx = context;
    const link = (await ctx.deps.upstream.createPaymentLink({
      amount: 1000,
      currency: 'XOF',
      purchaseReference: 'link-audit-1',
    })) as { id: string };
    const inboxId = await ctx.inboxEvent({ kind: 'payment_link', id: link.id });
    const synced = await syncResource(
      ctx.deps,
      { kind: 'payment_link', id: link.id, inboxId, via: 'webhook' },
      { attempt: 1 },
    );
    expect(synced).toMatchObject({ outcome: 'linked', closedRows: 1 });
    expect(await findInboxEvent(ctx.database.db, inboxId)).toMatchObject({ status: 'processed' });
    const clean = await runAudit(ctx.database.db, { now: () => new Date() });
    expect(clean.violations).toEqual([]);

    const later = await ctx.inboxEvent({ kind: 'payment_link', id: link.id });
    await ctx.database.db
      .updateTable('webhook_inbox')
      .set({ status: 'processed', processed_at: new Date().toISOString() })
      .where('id', '=', later)
      .execute();
    const report = await runAudit(ctx.database.db, { now: () => new Date() });
    expect(report.violations.map((v) => [v.check, v.ids.inboxId])).toEqual([
      ['inbox_processed_uncovered', String(later)],
    ]);
  });
});
