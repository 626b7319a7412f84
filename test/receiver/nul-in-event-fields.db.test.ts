import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

// Found by the receiver fuzz test (seed 20261123, PostgreSQL): a JSON string may hold U+0000
// ("\u0000"), which a PostgreSQL text column refuses. Taken as the event's type or id, it made
// the inbox insert fail: 503 for ever to that event, and to any event sharing its group commit.

let fixture: ReceiverFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

describe('receiver: U+0000 in an event id or type', () => {
  it('stores a signed event whose type holds U+0000, and the events committed with it', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const poisoned = signedEvent(secret, {
      id: 'evt_nulintype00000000000001',
      body: '{"id":"evt_nulintype00000000000001","type":"transfer\\u0000updated"}',
    });
    const neighbour = signedEvent(secret, { id: 'evt_nulneighbour0000000001' });
    // Sent together: when the group commit puts both in one statement (not guaranteed, it
    // depends on arrival), the neighbour must not fail with it.
    const [first, second] = await Promise.all([
      fixture.post(poisoned.body, poisoned.headers),
      fixture.post(neighbour.body, neighbour.headers),
    ]);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    const stored = await findInboxEvent(fixture.database.db, first.body.inboxId as number);
    expect(stored?.eventId).toBe('evt_nulintype00000000000001');
    expect(stored?.eventType).toBeNull();
    expect(stored?.rawBody.toString()).toBe(poisoned.body);
  });

  it('dedupes an unsigned event whose id holds U+0000 by its bytes', async () => {
    fixture = await startReceiverFixture({ env: { PAYSYNC_WEBHOOK_SCHEME: 'none' } });
    const body = '{"id":"evt_\\u0000zero","type":"transfer.updated"}';
    const first = await fixture.post(body);
    expect(first.status).toBe(202);
    const again = await fixture.post(body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, inboxId: first.body.inboxId });
    const stored = await findInboxEvent(fixture.database.db, first.body.inboxId as number);
    expect(stored?.eventId).toBeNull();
    expect(stored?.dedupeKey).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await fixture.inboxCount()).toBe(1);
  });
});
