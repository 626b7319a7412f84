import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { resolveSyncDependencies, syncResource } from '../../src/reconcile/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';

const CLOCK = '2030-01-02T03:04:05.678Z';

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

describe(`the injected clock of a sync on ${testDialect()}`, () => {
  it('is merged with the defaults in one place, and resolving twice changes nothing', async () => {
    context = await createSyncContext();
    const resolved = resolveSyncDependencies(context.deps);
    expect(resolved.notFoundAttempts).toBe(3);
    expect(Math.abs(resolved.now().getTime() - Date.now())).toBeLessThan(5_000);
    const fixed = () => new Date(CLOCK);
    const again = resolveSyncDependencies(resolveSyncDependencies({ ...context.deps, now: fixed }));
    expect(again.now).toBe(fixed);
  });

  it('stamps the inbox rows a payment link sync closes with the injected time', async () => {
    context = await createSyncContext({ overrides: { now: () => new Date(CLOCK) } });
    const link = await context.deps.upstream.createPaymentLink({
      amount: 1000,
      currency: 'XOF',
      purchaseReference: 'clock-link',
    });
    const inboxId = await context.inboxEvent({ kind: 'payment_link', id: String(link.id) });
    const result = await syncResource(
      context.deps,
      { kind: 'payment_link', id: String(link.id), inboxId, via: 'webhook' },
      { attempt: 1 },
    );
    expect(result.outcome).toBe('linked');
    expect(await findInboxEvent(context.database.db, inboxId)).toMatchObject({
      status: 'processed',
      processedAt: CLOCK,
    });
  });

  it('dates the discrepancy and the alert follow-up of a sync that gives up with the injected time', async () => {
    context = await createSyncContext({ overrides: { now: () => new Date(CLOCK) } });
    const inboxId = await context.inboxEvent({ kind: 'transfer', id: 'tr_clockmissing' });
    const result = await syncResource(
      context.deps,
      { kind: 'transfer', id: 'tr_clockmissing', inboxId, via: 'webhook' },
      { attempt: 3 },
    );
    expect(result.outcome).not.toBe('retry');
    const db = context.database.db;
    const discrepancies = await db
      .selectFrom('discrepancies')
      .select(['kind', 'created_at'])
      .where('resource_id', '=', 'tr_clockmissing')
      .execute();
    expect(discrepancies).toEqual([{ kind: 'unknown_upstream_resource', created_at: CLOCK }]);
    const followUps = await db
      .selectFrom('outbox')
      .select(['created_at', 'available_at'])
      .execute();
    expect(followUps.length).toBeGreaterThan(0);
    for (const row of followUps) expect(row).toEqual({ created_at: CLOCK, available_at: CLOCK });
  });
});
