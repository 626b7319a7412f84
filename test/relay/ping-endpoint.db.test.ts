import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pingEndpoint } from '../../src/relay/index.ts';
import { insertEndpoint } from '../support/relay-rows.ts';
import { testDialect } from '../support/test-database.ts';
import { startRelayConsumer, type RelayConsumer } from './support/relay-consumer.ts';
import { createRelaySetup, type RelaySetup } from './support/relay-setup.ts';

let setup: RelaySetup;
let consumer: RelayConsumer | undefined;
beforeEach(async () => {
  setup = await createRelaySetup();
});
afterEach(async () => {
  await setup.cleanup();
  await consumer?.close();
});

describe(`pingEndpoint (endpoints test) on ${testDialect()}`, () => {
  it('sends one signed ping and returns the answer; it records nothing', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    const result = await pingEndpoint(endpoint, setup.settings(), 'sandbox', setup.now());
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 200, excerpt: 'ok' });
    expect(consumer.badSignatures).toBe(0);
    const [ping] = consumer.events;
    expect(ping!.id).toMatch(/^evt_ping_[0-9a-f]{20}$/);
    expect(ping!.body).toEqual({
      id: ping!.id,
      type: 'ping',
      timestamp: setup.now().toISOString(),
      environment: 'sandbox',
      data: {
        endpoint: endpoint.endpoint_id,
        message: 'A test event from paysync endpoints test; nothing to do.',
      },
    });
    for (const table of ['relay_events', 'relay_deliveries', 'relay_attempts'] as const) {
      const { count } = await setup.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(count), table).toBe(0);
    }
  });

  it('answers a refused loopback URL in live with the guard’s reason, sending nothing', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    const result = await pingEndpoint(endpoint, setup.settings(), 'live', setup.now());
    expect(result.outcome).toBe('error');
    expect(result.error).toContain('internal address');
    expect(consumer.requests).toBe(0);
  });
});
