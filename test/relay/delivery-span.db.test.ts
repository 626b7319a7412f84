import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inMemoryTraces } from '../support/in-memory-traces.ts';
import { insertEndpoint, insertEvent } from '../support/relay-rows.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';
import { startRelayConsumer, type RelayConsumer } from './support/relay-consumer.ts';
import { createRelaySetup, type RelaySetup } from './support/relay-setup.ts';

const exporter = inMemoryTraces();

let setup: RelaySetup;
let consumer: RelayConsumer | undefined;
beforeEach(async () => {
  setup = await createRelaySetup();
});
afterEach(async () => {
  await setup.cleanup();
  await consumer?.close();
  consumer = undefined;
});

/** Issue 43: each relay delivery attempt is a span (docs/observability.md). */
describe(`relay deliveries as spans, on ${testDialect()}`, () => {
  it('one client span per attempt: the item, the event, the endpoint, the outcome; no secret, no body', async () => {
    let answer: 500 | 200 = 500;
    consumer = await startRelayConsumer([], () => answer, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    await insertEvent(setup.database.db, {
      subject: 'transfer:tr_relayspan01',
      at: setup.now(),
      data: { item: 'tr_relayspan01', recipient: '+221771234567' },
      deliverTo: [endpoint.id],
    });
    await setup.startDeliverer({ timeoutMs: 1500 });
    // This event's attempts only: an hour of failing raises relay_endpoint_failing, whose
    // alert.raised event the endpoint (subscribed to every type) is sent too.
    const delivered = () =>
      exporter
        .getFinishedSpans()
        .filter(
          (span) =>
            span.name === 'paysync.relay.deliver' &&
            span.attributes['paysync.item.id'] === 'tr_relayspan01',
        );
    const seeded = () => consumer!.events.filter((event) => event.type !== 'alert.raised');
    await until(() => delivered().length >= 1, { message: 'a first attempt' });
    // The attempt recorded (its span ends first), so the retry is scheduled from this clock.
    await until(
      async () =>
        (await setup.database.db.selectFrom('relay_attempts').select('id').execute()).length >= 1,
      { message: 'the first attempt recorded' },
    );
    answer = 200;
    setup.advance(3_600_000);
    await until(
      () => {
        // Wake the deliverer again on each look: a wake that came while it was still busy
        // with the first attempt must not leave the retry to its idle poll.
        setup.advance(0);
        return seeded().length === 1 && delivered().length >= 2;
      },
      { message: 'the event delivered on a later attempt' },
    );
    const [failed, ok] = delivered();
    expect(failed!.attributes).toMatchObject({
      'paysync.item.kind': 'transfer',
      'paysync.item.id': 'tr_relayspan01',
      'paysync.relay.endpoint': endpoint.endpoint_id,
      'paysync.relay.attempt': 1,
      'paysync.relay.outcome': 'failed',
      'http.response.status_code': 500,
    });
    expect(failed!.status.code).toBe(2);
    expect(ok!.attributes).toMatchObject({
      'paysync.relay.attempt': 2,
      'paysync.relay.outcome': 'delivered',
      'http.response.status_code': 200,
    });
    expect(ok!.parentSpanContext).toBeUndefined();
    const exported = JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes));
    expect(exported).not.toContain(endpoint.secret);
    expect(exported).not.toContain('221771234567');
  });
});
