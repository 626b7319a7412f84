import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';
import { until } from '../support/until.ts';

let fixture: ReceiverFixture | undefined;
let daemonFixture: DaemonFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  await daemonFixture?.cleanup();
  fixture = undefined;
  daemonFixture = undefined;
});

describe(`receiver: which deliveries are the same event, on ${testDialect()}`, () => {
  it('keeps two events with distinct long webhook-ids and the same body apart (7.A3)', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const body = JSON.stringify({
      type: 'transfer.updated',
      data: { id: 'tr_longidtransfer000001' },
    });
    const first = signedEvent(secret, { id: `msg_${'a'.repeat(300)}`, body });
    const second = signedEvent(secret, { id: `msg_${'a'.repeat(299)}b`, body });
    const a = await fixture.post(first.body, first.headers);
    const b = await fixture.post(second.body, second.headers);
    expect(a).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(b).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(await fixture.inboxCount()).toBe(2);
    const row = await findInboxEvent(fixture.database.db, a.body.inboxId as number);
    expect(row?.eventId).toBe(first.id);

    // A retry of the first, signed again later, is still recognised.
    const retry = signedEvent(secret, { id: first.id, body, at: new Date(Date.now() + 1000) });
    const again = await fixture.post(retry.body, retry.headers);
    expect(again).toMatchObject({
      status: 200,
      body: { duplicate: true, inboxId: a.body.inboxId },
    });
    expect(await fixture.inboxCount()).toBe(2);
  });

  it('a repeated id-less notification after processing leads to a new fetch and books nothing twice (7.A2)', async () => {
    daemonFixture = await createDaemonFixture({ env: { PAYSYNC_WEBHOOK_SCHEME: 'none' } });
    const daemon = await daemonFixture.startDaemon(['receiver', 'workers']);
    const { db } = daemonFixture.database;
    const transfer = daemonFixture.sim.control.createTransfer({
      amount: 2500,
      reference: 'ref-a2-repeat',
      destination: { number: '+221771112233' },
    });
    // A minimal notification: no event id, so it is keyed by the hash of its bytes.
    const body = JSON.stringify({ resourceId: transfer.id, resourceType: 'transfer' });
    const post = async () => {
      const response = await fetch(`${daemon.receiver!.url}${daemonFixture!.config.webhook.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const statusOf = async () => (await findResource(db, transfer.id))?.record.status;
    const processed = (inboxId: number) =>
      until(async () => (await findInboxEvent(db, inboxId))?.status, {
        accept: (status) => status === 'processed',
        message: `inbox row ${inboxId} processed`,
      });

    const first = await post();
    expect(first).toMatchObject({ status: 202, body: { duplicate: false } });
    await processed(first.body.inboxId as number);
    expect(await statusOf()).toBe(transfer.status);
    expect(transfer.status).not.toBe('successful');

    // The simulator's clock is frozen: move it so the change has a newer updatedAt.
    daemonFixture.sim.control.advance(1000);
    daemonFixture.sim.control.settle(transfer.id, 'successful');
    const second = await post();
    expect(second).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(second.body.inboxId).not.toBe(first.body.inboxId);
    await processed(second.body.inboxId as number);
    expect(await statusOf()).toBe('successful');

    // A replay of the same bytes fetches again, and the books do not change.
    const settlements = async () =>
      (await findResource(db, transfer.id))!.journals.filter((j) => j.entryType === 'settlement');
    expect(await settlements()).toHaveLength(1);
    const third = await post();
    expect(third.status).toBe(202);
    await processed(third.body.inboxId as number);
    expect(await settlements()).toHaveLength(1);
    expect(await statusOf()).toBe('successful');
  });
});
