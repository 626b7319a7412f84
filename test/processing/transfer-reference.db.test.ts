import { afterEach, describe, expect, it } from 'vitest';
import { applyTransfer, journalsFor } from '../../src/ledger/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
import {
  resolveSyncDependencies,
  resolveTransferReference,
  syncResource,
  UnknownResourceError,
} from '../../src/reconcile/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

function createTransfer(c: SyncContext, reference: string) {
  return c.sim.control.createTransfer({
    amount: 2500,
    reference,
    destination: { number: '+221771112233' },
  });
}

/**
 * GET /transfers filters by reference, not id. For an event naming only `tr_…`, the reference
 * comes from the event, then an earlier event about it, then the mirror, then a bounded walk
 * of recent transfers; the service is asked only at the last step.
 */
describe(`transfer reference resolution on ${testDialect()}`, () => {
  it('takes the event body first, without asking the service', async () => {
    context = await createSyncContext();
    const transfer = createTransfer(context, 'ref-event');
    await context.inboxEvent({ kind: 'transfer', id: transfer.id, reference: 'ref-from-inbox' });
    const before = context.deps.upstream.stats().requests;
    const resolved = await resolveTransferReference(
      resolveSyncDependencies(context.deps),
      transfer.id,
      'ref-event',
    );
    expect(resolved).toEqual({ reference: 'ref-event', source: 'event' });
    expect(context.deps.upstream.stats().requests).toBe(before);
  });

  it('then an earlier event about the same transfer, before the mirror', async () => {
    context = await createSyncContext();
    const transfer = createTransfer(context, 'ref-real');
    const [state] = await context.deps.upstream.listTransfers({
      reference: 'ref-real',
      from: new Date(0),
    });
    await applyTransfer(context.database.db, state!, {
      via: 'poll',
      observedAt: new Date().toISOString(),
    });
    await context.inboxEvent({ kind: 'transfer', id: transfer.id, reference: 'ref-from-inbox' });
    const resolved = await resolveTransferReference(
      resolveSyncDependencies(context.deps),
      transfer.id,
      undefined,
    );
    expect(resolved).toEqual({ reference: 'ref-from-inbox', source: 'inbox' });
  });

  it('then the local mirror', async () => {
    context = await createSyncContext();
    const transfer = createTransfer(context, 'ref-mirror');
    const [state] = await context.deps.upstream.listTransfers({
      reference: 'ref-mirror',
      from: new Date(0),
    });
    await applyTransfer(context.database.db, state!, {
      via: 'poll',
      observedAt: new Date().toISOString(),
    });
    const before = context.deps.upstream.stats().requests;
    const resolved = await resolveTransferReference(
      resolveSyncDependencies(context.deps),
      transfer.id,
      undefined,
    );
    expect(resolved).toEqual({ reference: 'ref-mirror', source: 'mirror' });
    expect(context.deps.upstream.stats().requests).toBe(before);
  });

  it('then a walk of the recent window, which also hands back the transfer', async () => {
    context = await createSyncContext();
    for (let i = 0; i < 30; i += 1) createTransfer(context, `noise-${i}`);
    const transfer = createTransfer(context, 'ref-window');
    const before = context.deps.upstream.stats().requests;
    const resolved = await resolveTransferReference(
      resolveSyncDependencies(context.deps),
      transfer.id,
      undefined,
    );
    expect(resolved.source).toBe('window');
    expect(resolved.reference).toBe('ref-window');
    expect(resolved.found?.id).toBe(transfer.id);
    expect(context.deps.upstream.stats().requests).toBeGreaterThan(before);
  });

  it('gives up on a transfer created before the window, or unknown to the service', async () => {
    // The simulator clock runs an hour behind: a 30-minute window cannot reach its transfers.
    context = await createSyncContext({ overrides: { transferSearchHours: 0.5 } });
    const old = createTransfer(context, 'ref-too-old');
    await expect(
      resolveTransferReference(resolveSyncDependencies(context.deps), old.id, undefined),
    ).rejects.toThrow(UnknownResourceError);
    await expect(
      resolveTransferReference(
        resolveSyncDependencies(context.deps),
        'tr_000000000000000000000000',
        undefined,
      ),
    ).rejects.toThrow(/not among the transfers of the last 0.5 h/);
  });

  it('lets a sync of an id-only event book the transfer with its reference', async () => {
    context = await createSyncContext();
    const transfer = createTransfer(context, 'ref-sync');
    const inboxId = await context.inboxEvent({ kind: 'transfer', id: transfer.id });
    const result = await syncResource(
      context.deps,
      { kind: 'transfer', id: transfer.id, inboxId, via: 'webhook' },
      { attempt: 1 },
    );
    expect(result.outcome).toBe('synced');
    const view = await findResource(context.database.db, transfer.id);
    expect(view?.record).toMatchObject({
      kind: 'transfer',
      reference: 'ref-sync',
      status: 'created',
    });
  });

  it('syncs a refund whose transfer was never mirrored by fetching the transfer first', async () => {
    context = await createSyncContext();
    const transfer = context.sim.control.createTransfer({
      amount: 10_000,
      reference: 'ref-irt',
      isIrt: true,
      destination: { number: '+221771112244' },
    });
    context.sim.control.settle(transfer.id, 'successful');
    const created = (await context.deps.upstream.createTransferRefund({
      transactionId: transfer.id,
    })) as {
      id: number;
    };
    context.sim.control.settle(created.id, 'successful');
    const result = await syncResource(
      context.deps,
      { kind: 'refund', id: String(created.id), via: 'webhook' },
      { attempt: 1 },
    );
    expect(result.outcome).toBe('synced');
    expect((await findResource(context.database.db, transfer.id))?.record.status).toBe(
      'successful',
    );
    const [journal] = await journalsFor(context.database.db, 'refund', String(created.id));
    expect(journal?.lines.map((line) => line.account).sort()).toEqual([
      'payouts:recipients',
      'service:transfer-irt',
    ]);
  });
});
