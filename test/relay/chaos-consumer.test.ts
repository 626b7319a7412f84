import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lifecycle/index.ts';
import {
  newEndpointSecret,
  postEvent,
  relayMessageBody,
  signedHeaders,
} from '../../src/relay/index.ts';
import {
  startChaosRelayConsumer,
  type ChaosRelayConsumer,
} from '../support/chaos/relay-consumer.ts';

let consumer: ChaosRelayConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  consumer = undefined;
});

const event = (id: string, type: string, data: Record<string, unknown>) => ({
  event_id: id,
  type,
  occurred_at: '2026-11-20T10:00:00.000Z',
  environment: 'sandbox',
  data: JSON.stringify(data),
});

/** One delivery as the deliverer makes it: signed with `secret`, through postEvent. */
function deliver(to: ChaosRelayConsumer, secret: string, row: ReturnType<typeof event>) {
  const body = relayMessageBody(row);
  return postEvent({
    url: to.url,
    headers: { ...signedHeaders([secret], row.event_id, new Date(), body) },
    body,
    timeoutMs: 2000,
  });
}

describe("the chaos run's relay consumer", () => {
  it('verifies, answers 500 at its rate, refuses connections while down, and keeps each event once in arrival order', async () => {
    const secret = newEndpointSecret();
    const answers = [0.9, 0.1, 0.9, 0.9, 0.9, 0.9];
    consumer = await startChaosRelayConsumer({
      port: await freePort(),
      failRate: 0.2,
      random: () => answers.shift() ?? 0.9,
    });
    consumer.setSecret(secret);
    const first = event('evt_1', 'transfer.status_changed', { id: 'tr_1', status: 'pending' });
    const second = event('evt_2', 'transfer.succeeded', { id: 'tr_1', status: 'successful' });
    const day = event('evt_3', 'day.verdict', { day: '2026-11-19', verdict: 'RECONCILED' });

    expect((await deliver(consumer, secret, first)).outcome).toBe('delivered');
    expect((await deliver(consumer, secret, second)).statusCode).toBe(500);
    expect((await deliver(consumer, newEndpointSecret(), second)).statusCode).toBe(401);
    await consumer.down();
    const refused = await deliver(consumer, secret, second);
    expect(refused.outcome).toBe('error');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await consumer.up();
    expect((await deliver(consumer, secret, second)).outcome).toBe('delivered');
    expect((await deliver(consumer, secret, first)).outcome).toBe('delivered');
    expect((await deliver(consumer, secret, day)).outcome).toBe('delivered');

    expect([...consumer.events.values()].map((e) => [e.id, e.type, e.subject, e.arrival])).toEqual([
      ['evt_1', 'transfer.status_changed', 'transfer:tr_1', 1],
      ['evt_2', 'transfer.succeeded', 'transfer:tr_1', 2],
      ['evt_3', 'day.verdict', 'day:2026-11-19', 3],
    ]);
    const figures = consumer.figures();
    expect(figures).toMatchObject({
      requests: 6,
      events: 3,
      duplicates: 1,
      answered500: 1,
      badSignatures: 1,
      mismatchedIds: 0,
    });
    expect(figures.downMs).toBeGreaterThanOrEqual(40);
  });
});
