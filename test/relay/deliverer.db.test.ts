import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../../src/metrics/index.ts';
import {
  notifyRelay,
  resealEndpointSecrets,
  RETRY_SCHEDULE_MS,
  type RelayEndpointRow,
} from '../../src/relay/index.ts';
import { deliveriesOf, insertEndpoint, insertEvent } from '../support/relay-rows.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';
import { startRelayConsumer, verifier, type RelayConsumer } from './support/relay-consumer.ts';
import { createRelaySetup, type RelaySetup } from './support/relay-setup.ts';

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

const SECOND = 1000;

function attempts(endpoint: RelayEndpointRow) {
  return setup.database.db
    .selectFrom('relay_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpoint.id)
    .orderBy('id')
    .execute();
}

async function attemptsReach(endpoint: RelayEndpointRow, count: number, what: string) {
  return until(async () => ((await attempts(endpoint)).length >= count ? true : undefined), {
    message: what,
  });
}

/**
 * The events the test seeded, as the consumer received them. The relay also emits an
 * `alert.raised` for each new alert, the endpoint's own included (`relay_endpoint_failing`
 * while it is still enabled), which the endpoint, subscribed to every type, receives too.
 */
function seeded(): RelayConsumer['events'] {
  return consumer!.events.filter((event) => event.type !== 'alert.raised');
}

function subjectsInOrder(): Record<string, number[]> {
  const bySubject: Record<string, number[]> = {};
  for (const event of seeded()) {
    const [subject, n] = String((event.body.data as { item: string }).item).split('#');
    (bySubject[subject!] ??= []).push(Number(n));
  }
  return bySubject;
}

describe(`the relay deliverer on ${testDialect()}`, () => {
  it('500, a timeout, 410 (disabled, alert), enabled again: every event once, in order per subject, signed', async () => {
    let mode: 500 | 'hang' | 410 | 200 = 500;
    consumer = await startRelayConsumer([], () => mode, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    const plan = ['a#1', 'b#1', 'a#2', 'a#3', 'b#2'];
    for (const item of plan) {
      await insertEvent(setup.database.db, {
        subject: `transfer:${item.split('#')[0]}`,
        at: setup.now(),
        data: { item },
        deliverTo: [endpoint.id],
      });
    }
    await setup.startDeliverer({ timeoutMs: 1500 });

    // 500: the first of each subject is tried; the later ones wait behind it.
    await attemptsReach(endpoint, 2, 'the two heads answered 500');
    let log = await attempts(endpoint);
    expect(log.map((a) => [a.outcome, a.status_code, a.attempt])).toEqual([
      ['failed', 500, 1],
      ['failed', 500, 1],
    ]);
    expect(log[0]!.response_excerpt).toHaveLength(1024);
    let rows = await deliveriesOf(setup.database.db, endpoint.id);
    const due = new Date(setup.now().getTime() + RETRY_SCHEDULE_MS[1]!).toISOString();
    expect(rows.map((d) => [d.state, d.attempts, d.next_attempt_at])).toEqual([
      ['pending', 1, due],
      ['pending', 1, due],
      ['pending', 0, due],
      ['pending', 0, due],
      ['pending', 0, due],
    ]);
    const failingSince = (
      await setup.database.db
        .selectFrom('relay_endpoints')
        .select('failing_since')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow()
    ).failing_since;
    expect(failingSince).toBe(setup.now().toISOString());

    // A timeout.
    mode = 'hang';
    setup.advance(6 * SECOND);
    await attemptsReach(endpoint, 4, 'the two heads timed out');
    log = await attempts(endpoint);
    expect(log.slice(2).map((a) => [a.outcome, a.status_code, a.attempt, a.error])).toEqual([
      ['timeout', null, 2, 'timed out after 1500 ms'],
      ['timeout', null, 2, 'timed out after 1500 ms'],
    ]);

    // 410: the endpoint is disabled at once, an alert raised, the deliveries stay pending.
    mode = 410;
    setup.advance(6 * 60 * SECOND);
    await attemptsReach(endpoint, 5, 'a 410');
    await until(
      async () =>
        (await setup.alerts()).find((a) => a.kind === 'relay_endpoint_disabled') ?? undefined,
      { message: 'the disabled alert' },
    );
    const disabled = await setup.database.db
      .selectFrom('relay_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(disabled.status).toBe('disabled');
    expect(disabled.disabled_reason).toContain('410 Gone');
    rows = await deliveriesOf(setup.database.db, endpoint.id);
    expect(rows.every((d) => d.state === 'pending')).toBe(true);
    const alert = (await setup.alerts()).find((a) => a.kind === 'relay_endpoint_disabled')!;
    expect(alert.subject).toBe(endpoint.endpoint_id);
    expect(alert.title).toContain('410 Gone');

    // Disabled: nothing goes out, however long we wait. The other head's 410 may still be on
    // its way when the first disabled the endpoint: count once the log stops growing.
    let before = -1;
    await until(
      async () => {
        const count = (await attempts(endpoint)).length;
        const settled = count === before;
        before = count;
        if (!settled) await new Promise((resolve) => setTimeout(resolve, 500));
        return settled;
      },
      { message: 'the attempts in flight at the 410 to be recorded' },
    );
    mode = 200;
    setup.advance(3 * 3600 * SECOND);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await attempts(endpoint)).length).toBe(before);

    // Enabled again as `paysync endpoints enable` does, which forgets the failing run (a bare
    // status update left it, and a poll could then raise `relay_endpoint_failing`, whose
    // `alert.raised` reached this subscribed-to-all endpoint as a sixth event): everything
    // arrives, once, in order.
    await setup.database.db
      .updateTable('relay_endpoints')
      .set({
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        updated_at: setup.now().toISOString(),
      })
      .where('id', '=', endpoint.id)
      .execute();
    notifyRelay();
    await until(
      async () =>
        (await deliveriesOf(setup.database.db, endpoint.id)).every((d) => d.state === 'delivered')
          ? true
          : undefined,
      { message: 'every delivery delivered' },
    );
    expect(seeded()).toHaveLength(plan.length);
    for (const event of consumer.events.filter((e) => e.type === 'alert.raised')) {
      expect(event.body.data).toMatchObject({
        kind: expect.stringMatching(/^relay_endpoint_(failing|disabled)$/),
        subject: endpoint.endpoint_id,
      });
    }
    expect(consumer.duplicates).toBe(0);
    expect(consumer.badSignatures).toBe(0);
    expect(subjectsInOrder()).toEqual({ a: [1, 2, 3], b: [1, 2] });
    const healthy = await setup.database.db
      .selectFrom('relay_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(healthy.failing_since).toBeNull();
    expect(healthy.last_success_at).toBe(setup.now().toISOString());
    await until(
      async () =>
        (await setup.alerts()).find(
          (a) => a.kind === 'relay_endpoint_disabled' && a.status === 'resolved',
        ) ?? undefined,
      { message: 'the disabled alert resolved' },
    );

    // The delivery log holds every attempt; the metrics count them.
    log = await attempts(endpoint);
    expect(log.filter((a) => a.outcome === 'delivered')).toHaveLength(consumer.events.length);
    expect(log.every((a) => (a.response_excerpt ?? '').length <= 1024)).toBe(true);
    const metrics = await metricsRegistry.metrics();
    expect(metrics).toContain(
      `paysync_relay_deliveries_total{endpoint="${endpoint.endpoint_id}",outcome="gone"} ${log.filter((a) => a.outcome === 'gone').length}`,
    );
    expect(metrics).toMatch(
      new RegExp(
        `paysync_relay_attempt_duration_seconds_count\\{endpoint="${endpoint.endpoint_id}"\\} ${log.length}\\b`,
      ),
    );
  });

  it('after a rotation both signatures are sent and each verifies; an expired previous secret is not used', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const previous = (await insertEndpoint(setup.database.db, { url: 'http://x', at: setup.now() }))
      .secret;
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
      previousSecret: previous,
      previousSecretExpiresAt: new Date(setup.now().getTime() + 24 * 3600 * SECOND).toISOString(),
    });
    consumer.secrets = [endpoint.secret, previous];
    await insertEvent(setup.database.db, {
      subject: 'transfer:r',
      at: setup.now(),
      data: { item: 'r#1' },
      deliverTo: [endpoint.id],
    });
    await setup.startDeliverer();
    await until(() => (consumer!.events.length === 1 ? true : undefined), {
      message: 'the event',
    });
    const signatures = consumer.signatures[0]!.split(' ');
    expect(signatures).toHaveLength(2);
    expect(consumer.verifiedWith[0]).toEqual([0, 1]);
    // Each signature alone verifies with its own secret.
    const sent = consumer.events[0]!;
    const body = sent.raw;
    for (const [index, secret] of [endpoint.secret, previous].entries()) {
      const headers = {
        'webhook-id': sent.id,
        'webhook-timestamp': String(Math.floor(setup.now().getTime() / 1000)),
        'webhook-signature': signatures[index]!,
      };
      expect(() => verifier(secret, setup.now).verify(body, headers)).not.toThrow();
      // …and not with the other secret.
      const other = index === 0 ? previous : endpoint.secret;
      expect(() => verifier(other, setup.now).verify(body, headers)).toThrow();
    }

    // A day later the previous secret has expired: one signature.
    setup.advance(25 * 3600 * SECOND);
    await insertEvent(setup.database.db, {
      subject: 'transfer:r',
      at: setup.now(),
      data: { item: 'r#2' },
      deliverTo: [endpoint.id],
    });
    notifyRelay();
    await until(() => (consumer!.events.length === 2 ? true : undefined), {
      message: 'the second event',
    });
    expect(consumer.signatures[1]!.split(' ')).toHaveLength(1);
    expect(consumer.verifiedWith[1]).toEqual([0]);
  });

  it('one stuck subject does not block another', async () => {
    consumer = await startRelayConsumer(
      [],
      (_, body) => ((body.data as { item: string }).item.startsWith('stuck') ? 500 : 200),
      setup.now,
    );
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    for (const item of ['stuck#1', 'free#1', 'stuck#2', 'free#2', 'free#3']) {
      await insertEvent(setup.database.db, {
        subject: `transfer:${item.split('#')[0]}`,
        at: setup.now(),
        data: { item },
        deliverTo: [endpoint.id],
      });
    }
    await setup.startDeliverer();
    await until(
      async () =>
        (await deliveriesOf(setup.database.db, endpoint.id)).filter((d) => d.state === 'delivered')
          .length === 3
          ? true
          : undefined,
      { message: 'the free subject delivered' },
    );
    expect(subjectsInOrder()).toEqual({ free: [1, 2, 3] });
    const rows = await deliveriesOf(setup.database.db, endpoint.id);
    expect(rows.map((d) => [d.subject, d.state, d.attempts])).toEqual([
      ['transfer:stuck', 'pending', 1],
      ['transfer:free', 'delivered', 1],
      ['transfer:stuck', 'pending', 0],
      ['transfer:free', 'delivered', 1],
      ['transfer:free', 'delivered', 1],
    ]);
  });

  it('two deliverers on one database never send one delivery twice at once, and keep the order', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    const subjects = 8;
    const perSubject = 6;
    for (let n = 1; n <= perSubject; n += 1) {
      for (let s = 0; s < subjects; s += 1) {
        await insertEvent(setup.database.db, {
          subject: `transfer:s${s}`,
          at: setup.now(),
          data: { item: `s${s}#${n}` },
          deliverTo: [endpoint.id],
        });
      }
    }
    await Promise.all([
      setup.startDeliverer({ concurrency: 4 }),
      setup.startDeliverer({ concurrency: 4 }),
    ]);
    await until(
      async () =>
        (await deliveriesOf(setup.database.db, endpoint.id)).every((d) => d.state === 'delivered')
          ? true
          : undefined,
      { message: 'every event delivered' },
    );
    expect(consumer.requests).toBe(subjects * perSubject);
    expect(consumer.duplicates).toBe(0);
    expect(consumer.maxConcurrentPerId).toBe(1);
    const order = subjectsInOrder();
    for (let s = 0; s < subjects; s += 1) {
      expect(order[`s${s}`]).toEqual([1, 2, 3, 4, 5, 6]);
    }
    expect(await attempts(endpoint)).toHaveLength(subjects * perSubject);
  });

  it('retries follow the schedule; after the last it gives up, which unblocks the subject', async () => {
    // The first event always fails; the second would succeed, once it may go.
    consumer = await startRelayConsumer(
      [],
      (_, body) => ((body.data as { item: string }).item === 't#1' ? 500 : 200),
      setup.now,
    );
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    for (const item of ['t#1', 't#2']) {
      await insertEvent(setup.database.db, {
        subject: 'transfer:t',
        at: setup.now(),
        data: { item },
        deliverTo: [endpoint.id],
      });
    }
    // A large failing alert threshold: this test is about the schedule.
    await setup.startDeliverer({
      failingAlertAfterMs: 30 * 86_400_000,
      disableAfterMs: 60 * 86_400_000,
    });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= RETRY_SCHEDULE_MS.length; attempt += 1) {
      await attemptsReach(endpoint, attempt, `attempt ${attempt}`);
      const [head, follower] = await deliveriesOf(setup.database.db, endpoint.id);
      const last = (await attempts(endpoint)).at(-1)!;
      if (attempt < RETRY_SCHEDULE_MS.length) {
        expect(head!.state).toBe('pending');
        waits.push(Date.parse(head!.next_attempt_at) - Date.parse(last.attempted_at));
        // The follower waits for the head, due no earlier than it.
        expect(follower!.next_attempt_at).toBe(head!.next_attempt_at);
        setup.advance(Date.parse(head!.next_attempt_at) - setup.now().getTime());
      } else {
        expect(head!.state).toBe('gave_up');
        expect(head!.finished_at).toBe(setup.now().toISOString());
      }
    }
    expect(waits).toEqual(RETRY_SCHEDULE_MS.slice(1));
    // Gave up: the next event of the subject goes.
    await until(() => (consumer!.events.length === 1 ? true : undefined), {
      message: 'the follower after the head gave up',
    });
    expect(subjectsInOrder()).toEqual({ t: [2] });
    const metrics = await metricsRegistry.metrics();
    expect(metrics).toContain(
      `paysync_relay_deliveries_total{endpoint="${endpoint.endpoint_id}",outcome="gave_up"} 1`,
    );
  });

  it('follows PAYSYNC_RELAY_RETRY_SCHEDULE (config.relay.retryScheduleMs): its waits, then gives up after its last attempt', async () => {
    consumer = await startRelayConsumer([], () => 500, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    await insertEvent(setup.database.db, {
      subject: 'transfer:short',
      at: setup.now(),
      data: { item: 'short#1' },
      deliverTo: [endpoint.id],
    });
    const schedule = [0, 1 * SECOND, 3 * SECOND];
    await setup.startDeliverer({
      retryScheduleMs: schedule,
      failingAlertAfterMs: 30 * 86_400_000,
      disableAfterMs: 60 * 86_400_000,
    });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= schedule.length; attempt += 1) {
      await attemptsReach(endpoint, attempt, `attempt ${attempt}`);
      const [delivery] = await deliveriesOf(setup.database.db, endpoint.id);
      if (attempt < schedule.length) {
        const last = (await attempts(endpoint)).at(-1)!;
        expect(delivery!.state).toBe('pending');
        waits.push(Date.parse(delivery!.next_attempt_at) - Date.parse(last.attempted_at));
        setup.advance(Date.parse(delivery!.next_attempt_at) - setup.now().getTime());
      } else {
        await until(
          async () =>
            (await deliveriesOf(setup.database.db, endpoint.id))[0]!.state === 'gave_up'
              ? true
              : undefined,
          { message: 'gave up after the third attempt' },
        );
      }
    }
    // The setup's jitter source is 0.5: no spread.
    expect(waits).toEqual([1 * SECOND, 3 * SECOND]);
    setup.advance(86_400_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await attempts(endpoint)).toHaveLength(3);
  });

  it('an endpoint failing for an hour raises one alert; failing too long disables it; a success resolves both', async () => {
    let failing = true;
    consumer = await startRelayConsumer([], () => (failing ? 500 : 200), setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    await insertEvent(setup.database.db, {
      subject: 'transfer:h',
      at: setup.now(),
      data: { item: 'h#1' },
      deliverTo: [endpoint.id],
    });
    await setup.startDeliverer({
      failingAlertAfterMs: 3600 * SECOND,
      disableAfterMs: 5 * 86_400_000,
    });
    await attemptsReach(endpoint, 1, 'the first failure');
    setup.advance(61 * 60 * SECOND);
    const failingAlert = await until(
      async () =>
        (await setup.alerts()).find((a) => a.kind === 'relay_endpoint_failing') ?? undefined,
      { message: 'the failing alert' },
    );
    expect(failingAlert.subject).toBe(endpoint.endpoint_id);
    // Polls go on: still one alert, told once.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = (await setup.alerts()).filter((a) => a.kind === 'relay_endpoint_failing');
    expect(again.map((a) => a.occurrences)).toEqual([1]);

    setup.advance(5 * 86_400_000);
    await until(
      async () =>
        (await setup.alerts()).find((a) => a.kind === 'relay_endpoint_disabled') ?? undefined,
      { message: 'the disabled alert' },
    );
    const row = await setup.database.db
      .selectFrom('relay_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('disabled');
    expect(row.disabled_reason).toContain('PAYSYNC_RELAY_DISABLE_AFTER');

    failing = false;
    // Enabled again as `paysync endpoints enable` does: updated_at is the change's time.
    await setup.database.db
      .updateTable('relay_endpoints')
      .set({
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        updated_at: setup.now().toISOString(),
      })
      .where('id', '=', endpoint.id)
      .execute();
    // The head may have given up meanwhile; a new event shows the endpoint works again.
    await insertEvent(setup.database.db, {
      subject: 'transfer:h2',
      at: setup.now(),
      data: { item: 'h2#1' },
      deliverTo: [endpoint.id],
    });
    notifyRelay();
    await until(
      async () => {
        const open = (await setup.alerts()).filter(
          (a) => a.kind.startsWith('relay_endpoint') && a.status !== 'resolved',
        );
        return open.length === 0 ? true : undefined;
      },
      { message: 'both alerts resolved' },
    );
    // Enabled again, it is not disabled again by the old run of failures.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await setup.database.db
      .selectFrom('relay_endpoints')
      .select(['status', 'failing_since'])
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ status: 'enabled', failing_since: null });
  });

  it('issue 38.8: signs with a secret sealed at rest; without its key the attempt fails saying which key', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    const key = { id: 'k1', key: Buffer.alloc(32, 3).toString('base64') };
    await resealEndpointSecrets(setup.database.db, [key], setup.now());
    const [stored] = await setup.database.db
      .selectFrom('relay_endpoints')
      .select('secret')
      .where('id', '=', endpoint.id)
      .execute();
    expect(stored!.secret).toMatch(/^enc:v1:k1:/);
    await insertEvent(setup.database.db, {
      subject: 'transfer:s',
      at: setup.now(),
      data: { item: 's#1' },
      deliverTo: [endpoint.id],
    });
    const keyless = await setup.startDeliverer({ secretsKeys: [] });
    await attemptsReach(endpoint, 1, 'the attempt without the key');
    await keyless.stop();
    const [refused] = await attempts(endpoint);
    expect(refused!.outcome).toBe('error');
    expect(refused!.error).toContain('sealed with key "k1"');
    expect(consumer.requests).toBe(0);

    await setup.startDeliverer({ secretsKeys: [key] });
    setup.advance(6 * SECOND);
    await until(() => (seeded().length === 1 ? true : undefined), {
      message: 'delivered with the key, signed with the secret it holds',
    });
  });

  it('the SSRF guard refuses a loopback URL in live, and delivers when it is allowed', async () => {
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const endpoint = await insertEndpoint(setup.database.db, {
      url: consumer.url,
      at: setup.now(),
    });
    consumer.secrets = [endpoint.secret];
    await insertEvent(setup.database.db, {
      subject: 'transfer:g',
      at: setup.now(),
      data: { item: 'g#1' },
      deliverTo: [endpoint.id],
    });
    const guarded = await setup.startDeliverer({}, { environment: 'live' });
    await attemptsReach(endpoint, 1, 'the refused attempt');
    await guarded.stop();
    const [refused] = await attempts(endpoint);
    expect(refused!.outcome).toBe('error');
    expect(refused!.error).toContain('internal address');
    expect(consumer.requests).toBe(0);

    await setup.startDeliverer({ allowedHosts: ['127.0.0.1'] }, { environment: 'live' });
    setup.advance(6 * SECOND);
    await until(() => (consumer!.events.length === 1 ? true : undefined), {
      message: 'delivered once allowed',
    });
  });
});
