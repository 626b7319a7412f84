import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lifecycle/index.ts';
import {
  newEndpointSecret,
  postEvent,
  relayMessageBody,
  signedHeaders,
} from '../../src/relay/index.ts';
import { checkRelayConsumer } from '../support/chaos/relay-check.ts';
import {
  startChaosRelayConsumer,
  type ChaosRelayConsumer,
} from '../support/chaos/relay-consumer.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

const AT = '2026-11-20T10:00:00.000Z';
let database: TestDatabase;
let consumer: ChaosRelayConsumer;
const secret = newEndpointSecret();

beforeEach(async () => {
  database = await freshDatabase();
  consumer = await startChaosRelayConsumer({
    port: await freePort(),
    failRate: 0,
    random: () => 0.5,
  });
  consumer.setSecret(secret);
  // The books: refund 7 went pending then successful; refund 8 failed at first sight.
  await database.db
    .insertInto('refunds')
    .values(
      (
        [
          ['7', 'successful'],
          ['8', 'failed'],
        ] as const
      ).map(([id, status]) => ({
        kind: 'refund' as const,
        id,
        status,
        upstream_status: status,
        amount: 1000,
        currency: 'XOF',
        updated_at: AT,
        raw: '{}',
        first_seen_at: AT,
        last_synced_at: AT,
      })),
    )
    .execute();
  await database.db
    .insertInto('status_history')
    .values(
      (
        [
          ['7', null, 'pending', '2026-11-20T10:00:00.000Z'],
          ['7', 'pending', 'successful', '2026-11-20T10:00:01.000Z'],
          ['8', null, 'failed', '2026-11-20T10:00:00.000Z'],
        ] as const
      ).map(([id, from, to, updated]) => ({
        resource_kind: 'refund',
        resource_id: id,
        from_status: from,
        to_status: to,
        observed_at: AT,
        via: 'webhook' as const,
        inbox_id: null,
        service_updated_at: updated,
      })),
    )
    .execute();
});
afterEach(async () => {
  await consumer.close();
  await database.cleanup();
});

let sequence = 0;
async function deliver(type: string, data: Record<string, unknown>, id = `evt_${++sequence}`) {
  const row = {
    event_id: id,
    type,
    occurred_at: AT,
    environment: 'sandbox',
    data: JSON.stringify(data),
  };
  const body = relayMessageBody(row);
  const result = await postEvent({
    url: consumer.url,
    headers: { ...signedHeaders([secret], id, new Date(), body) },
    body,
    timeoutMs: 2000,
  });
  expect(result.outcome).toBe('delivered');
}

const pending7 = [
  'refund.status_changed',
  { id: '7', status: 'pending', previousStatus: null },
] as const;
const succeeded7 = [
  'refund.succeeded',
  { id: '7', status: 'successful', previousStatus: 'pending' },
] as const;
const failed8 = ['refund.failed', { id: '8', status: 'failed', previousStatus: null }] as const;

describe(`the chaos run's relay check on ${testDialect()}`, () => {
  it('passes when the consumer holds one event per status reached, in order, duplicates aside', async () => {
    await deliver(...pending7);
    await deliver(...failed8, 'evt_f8');
    await deliver(...failed8, 'evt_f8');
    await deliver(...succeeded7);
    const checked = await checkRelayConsumer(database.db, consumer);
    expect(checked.problems).toEqual([]);
    expect(checked.found).toMatchObject({
      'relay events implied by the books': 3,
      'relay events received (distinct)': 3,
      'relay duplicates received (allowed: at least once)': 1,
      'relay final items (one succeeded or failed each)': 2,
      'relay items with more than one event (order checked)': 1,
    });
  });

  it('finds an item out of order, an event missing, a fact twice and one the books do not imply', async () => {
    await deliver(...succeeded7);
    await deliver(...pending7);
    await deliver('refund.succeeded', { id: '9', status: 'successful', previousStatus: null });
    await deliver(...succeeded7);
    const checked = await checkRelayConsumer(database.db, consumer);
    expect(checked.found).toMatchObject({
      'relay events missing': 1,
      'relay facts under two event ids': 1,
      'relay events the books do not imply': 1,
      'relay items out of order': 1,
    });
    expect(checked.problems.join('\n')).toMatch(
      /missing at the consumer: 1 \(e\.g\. refund\.failed refund:8:failed\)/,
    );
    expect(checked.problems.join('\n')).toMatch(
      /final items without exactly one succeeded\/failed event: 2/,
    );
    expect(checked.problems.join('\n')).toMatch(/out of order: 1 \(e\.g\. refund:7\)/);
  });
});
