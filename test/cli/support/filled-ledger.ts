import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import {
  insertInboxEvent,
  markInboxStatus,
  recordInboxResource,
} from '../../../src/inbox/index.ts';
import {
  applyPaymentIntent,
  applyRefund,
  applyTransfer,
  type Observation,
} from '../../../src/ledger/index.ts';
import { startSimulator, type RunningSimulator } from '../../../src/sim/index.ts';
import { createUpstreamClient, paymentIntent, transfer } from '../../../src/upstream/index.ts';

/** What {@link fillLedger} put in the database, for assertions. */
export interface FilledLedger {
  /** 150 000 XOF to a recipient ending 9901: fails with recipient_not_found. */
  readonly failedTransferId: string;
  readonly failedTransferInboxIds: readonly number[];
  /** 250 000 XOF, successful, with a fee. */
  readonly successfulTransferId: string;
  /** 12 345 EUR cents, successful. */
  readonly intentId: string;
  /** Refund of the successful transfer, successful. */
  readonly refundId: string;
}

/**
 * Fills a migrated database through the real ledger API with states the simulator served:
 * each resource is applied once when created and once when final, the failed transfer's two
 * states arriving as webhooks in the inbox. A simulator passed in is left running (with the
 * resources in it), one made here is stopped.
 */
export async function fillLedger(
  db: Kysely<Database>,
  given?: RunningSimulator,
): Promise<FilledLedger> {
  const sim = given ?? (await startSimulator({ freezeClock: true, webhookRetryDelaysMs: [] }));
  try {
    const { control } = sim;
    const client = createUpstreamClient({
      now: () => new Date(),
      baseUrl: sim.url,
      ...sim.credentials,
      maxRetries: 0,
    });
    const failed = control.createTransfer({
      amount: 150_000,
      currency: 'XOF',
      reference: 'cli-test-failed',
      destination: { number: '+221770009901', country: 'SN' },
    });
    const ok = control.createTransfer({
      amount: 250_000,
      currency: 'XOF',
      reference: 'cli-test-ok',
      destination: { number: '+221770001234', country: 'SN' },
    });
    const intent = control.createPaymentIntent({ amount: 12_345, currency: 'EUR' });

    const observed = (via: Observation['via'], inboxId?: number): Observation => ({
      via,
      observedAt: control.now(),
      ...(inboxId === undefined ? {} : { inboxId }),
    });
    const failedInboxIds: number[] = [];
    const viaWebhook = async (id: string, type: string): Promise<number> => {
      const body = { id: `evt_${failedInboxIds.length}_${id}`, type, data: { object: { id } } };
      const { inboxId } = await insertInboxEvent(db, {
        receivedAt: new Date(),
        dedupeKey: `event:${body.id}`,
        eventId: body.id,
        eventType: type,
        rawBody: Buffer.from(JSON.stringify(body)),
        headers: { 'content-type': 'application/json' },
      });
      await recordInboxResource(db, inboxId, { kind: 'transfer', id });
      failedInboxIds.push(inboxId);
      return inboxId;
    };

    const created = await viaWebhook(failed.id, 'transfer.created');
    await applyTransfer(db, transfer.parse(failed.resource), observed('webhook', created));
    await markInboxStatus(db, created, 'processed', { at: new Date() });
    await applyTransfer(db, transfer.parse(ok.resource), observed('poll'));
    await applyPaymentIntent(db, paymentIntent.parse(intent.resource), observed('poll'));

    control.advance(10_000);
    const updated = await viaWebhook(failed.id, 'transfer.updated');
    await applyTransfer(
      db,
      transfer.parse(control.item(failed.id)!.resource),
      observed('webhook', updated),
    );
    await markInboxStatus(db, updated, 'processed', { at: new Date() });
    await applyTransfer(db, transfer.parse(control.item(ok.id)!.resource), observed('poll'));
    await applyPaymentIntent(
      db,
      paymentIntent.parse(control.item(intent.id)!.resource),
      observed('poll'),
    );

    await client.createRefund({ transactionId: ok.id, reason: 'customer asked' });
    const refundItem = control.groundTruth({ kind: 'refund' }).items[0]!;
    control.advance(10_000);
    await applyRefund(db, await client.getRefund(refundItem.id), observed('poll'));

    return {
      failedTransferId: failed.id,
      failedTransferInboxIds: failedInboxIds,
      successfulTransferId: ok.id,
      intentId: intent.id,
      refundId: refundItem.id,
    };
  } finally {
    if (!given) await sim.stop();
  }
}
