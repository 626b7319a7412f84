import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { testDialect } from '../support/test-database.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

let fixture: ReceiverFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
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
});
