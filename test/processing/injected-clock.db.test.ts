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
});
