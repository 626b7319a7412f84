import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../src/sim/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { signedEvent } from '../receiver/support/receiver-fixture.ts';
import { parseScrape, seriesOf, type Sample } from '../support/scrape.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 25: the `tenant` label belongs to a process serving several tenants. A process of one
 * (no tenants file, or `--tenant`) reads as it always did: the counters and histogram its
 * webhooks, jobs and calls to the service move, and every other series, have no `tenant` label.
 */
describe(`/metrics of a process of one tenant on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let samples: Sample[];

  beforeAll(async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    await fixture.registerWebhook();
    const intent = fixture.sim.control.createPaymentIntent({ amount: 1500 });
    fixture.sim.control.settle(intent.id);
    // Signed with a secret this receiver does not have.
    const forged = signedEvent(generateWebhookSecret());
    const refused = await fetch(`${daemon.receiver!.url}${fixture.config.webhook.path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...forged.headers },
      body: forged.body,
    });
    expect(refused.status).toBe(401);
    const scrape = async () =>
      parseScrape(await (await fetch(`${daemon.opsServer!.url}/metrics`)).text());
    samples = await until(scrape, {
      message: 'the intent synced, as /metrics counts it',
      timeoutMs: 60_000,
      accept: (read) =>
        (seriesOf(read, 'paysync_sync_attempts_total', {
          kind: 'payment_intent',
          outcome: 'synced',
        })?.value ?? 0) > 0 &&
        (seriesOf(read, 'paysync_job_duration_seconds_count', {
          queue: 'sync',
          job: 'sync-batch',
          outcome: 'ok',
        })?.value ?? 0) > 0,
    });
  }, 120_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('counts its webhooks, jobs and service calls with no tenant label, and no series has one', () => {
    expect(
      seriesOf(samples, 'paysync_webhook_requests_total', { outcome: 'accepted' })?.value,
    ).toBeGreaterThan(0);
    expect(
      seriesOf(samples, 'paysync_webhook_signature_failures_total', { reason: 'bad_signature' })
        ?.value,
    ).toBe(1);
    expect(
      seriesOf(samples, 'paysync_upstream_requests_total', {
        operation: 'getPaymentIntent',
        outcome: 'ok',
      })?.value,
    ).toBeGreaterThan(0);
    // Label-less series read 0 from the start, as before tenants.
    expect(seriesOf(samples, 'paysync_inbox_unclassified_total', {})?.value).toBe(0);
    expect(seriesOf(samples, 'paysync_outbox_dispatch_failures_total', {})?.value).toBe(0);
    const labelled = samples.filter((sample) => 'tenant' in sample.labels);
    expect(labelled).toEqual([]);
  });
});
