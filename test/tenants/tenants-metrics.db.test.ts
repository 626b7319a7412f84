import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { signedEvent } from '../receiver/support/receiver-fixture.ts';
import { PROMTOOL, promtool, seriesName } from '../support/promtool.ts';
import { parseScrape, seriesOf, type Sample } from '../support/scrape.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

/**
 * Issue 25, the `tenant` label: in one process serving two tenants, every counter and histogram
 * a tenant's work moves (its webhooks, its jobs, its calls to its own service) carries
 * `tenant="<name>"`, so the operator reads each tenant apart. The tenants get different
 * amounts of work, so a count shared between them (or put on the wrong one) fails.
 */
interface Side {
  readonly name: string;
  readonly sim: RunningSimulator;
  readonly database: TestDatabase;
  readonly secret: string;
  /** Payment intents whose webhooks this tenant receives. */
  readonly intents: number;
}

const OTHER_SECRET = generateWebhookSecret();
const RULES = resolve(import.meta.dirname, '../../docs/prometheus-rules.yml');

describe(`/metrics of one process serving two tenants on ${testDialect()}`, () => {
  const prefix = uniqueRedisPrefix('tenants-metrics');
  const sides: Side[] = [];
  let daemon: RunningTenantsDaemon;
  let samples: Sample[];

  beforeAll(async () => {
    for (const [name, intents] of [
      ['shop-sn', 3],
      ['shop-ci', 2],
    ] as const) {
      const secret = generateWebhookSecret();
      const sim = await startSimulator({ merchantId: `mch_${name.replace('-', '_')}` });
      sides.push({ name, sim, database: await freshDatabase(), secret, intents });
    }
    const [sn, ci] = sides as [Side, Side];
    daemon = await startTenantsDaemon({
      tenants: sides.map((side) => ({
        name: side.name,
        config: loadConfig({
          PAYSYNC_UPSTREAM_URL: side.sim.url,
          PAYSYNC_API_KEY: side.sim.credentials.apiKey,
          PAYSYNC_MERCHANT_ID: side.sim.credentials.merchantId,
          PAYSYNC_DATABASE_URL: side.database.url,
          PAYSYNC_REDIS_URL: TEST_REDIS_URL,
          PAYSYNC_WEBHOOK_SECRET: side.secret,
          PAYSYNC_QUEUE_PREFIX: `${prefix}:${side.name}`,
          PAYSYNC_UPSTREAM_RPS: '5000',
          PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
        }),
      })),
      logger: createLogger({
        level: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
        pretty: false,
      }),
      // No scheduler: no sweep or snapshot adds calls to the service the test does not count.
      roles: ['receiver', 'workers'],
      port: 0,
      host: '127.0.0.1',
    });
    // shop-ci's service throttles its first two reads of an intent: the client retries them.
    ci.sim.control.injectErrors({ status: 429, operationId: 'getPaymentIntent', count: 2 });
    const post = (side: Side, event: ReturnType<typeof signedEvent>) =>
      fetch(`${daemon.front!.url}/webhooks/${side.name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...event.headers },
        body: event.body,
      });
    for (const side of sides) {
      for (let i = 0; i < side.intents; i += 1) {
        const intent = side.sim.control.createPaymentIntent({ amount: 1000 + i });
        const event = signedEvent(side.secret, {
          body: JSON.stringify({
            id: `evt_${side.name}_${i}`,
            type: 'payment_intent.updated',
            createdAt: new Date().toISOString(),
            data: { object: { id: intent.id, status: intent.status } },
          }),
        });
        expect((await post(side, event)).status).toBe(202);
      }
    }
    // A job no processor knows, on shop-sn's queue: it fails for good (one attempt).
    await daemon.tenants
      .get(sn.name)!
      .queues.scheduled.add('no-such-task', { task: 'x', slot: 'y' }, { attempts: 1 });
    // Signed with a secret shop-ci does not have: refused on shop-ci's path only.
    expect((await post(ci, signedEvent(OTHER_SECRET))).status).toBe(401);
    expect(sn.intents).not.toBe(ci.intents);

    const scrape = async () =>
      parseScrape(await (await fetch(`${daemon.opsServer!.url}/metrics`)).text());
    samples = await until(scrape, {
      message: "each tenant's intents synced, as /metrics counts them",
      timeoutMs: 60_000,
      accept: (read) =>
        seriesOf(read, 'paysync_job_failures_total', {
          queue: 'scheduled',
          job: 'no-such-task',
          final: 'true',
          tenant: sn.name,
        }) !== undefined &&
        sides.every(
          (side) =>
            seriesOf(read, 'paysync_sync_attempts_total', {
              kind: 'payment_intent',
              outcome: 'synced',
              tenant: side.name,
            })?.value === side.intents &&
            (seriesOf(read, 'paysync_job_duration_seconds_count', {
              queue: 'sync',
              job: 'sync-batch',
              outcome: 'ok',
              tenant: side.name,
            })?.value ?? 0) > 0,
        ),
    });
  }, 180_000);

  afterAll(async () => {
    await daemon?.stop().catch(() => undefined);
    for (const side of sides) {
      await side.sim.stop().catch(() => undefined);
      await side.database.cleanup().catch(() => undefined);
    }
    await deleteRedisPrefix(prefix);
  });

  it("counts each tenant's webhooks apart, and a refused signature on its own tenant only", () => {
    for (const side of sides) {
      const tenant = side.name;
      expect(
        seriesOf(samples, 'paysync_webhook_requests_total', { outcome: 'accepted', tenant })?.value,
      ).toBe(side.intents);
      expect(
        seriesOf(samples, 'paysync_inbox_classified_total', { kind: 'payment_intent', tenant })
          ?.value,
      ).toBe(side.intents);
    }
    const refused = { reason: 'bad_signature' };
    expect(
      seriesOf(samples, 'paysync_webhook_signature_failures_total', {
        ...refused,
        tenant: 'shop-ci',
      })?.value,
    ).toBe(1);
    expect(
      seriesOf(samples, 'paysync_webhook_requests_total', {
        outcome: 'bad_signature',
        tenant: 'shop-ci',
      })?.value,
    ).toBe(1);
    expect(
      seriesOf(samples, 'paysync_webhook_signature_failures_total', {
        ...refused,
        tenant: 'shop-sn',
      }),
    ).toBeUndefined();
  });

  it("counts each tenant's jobs and calls to its own service apart, and whose calls were throttled", () => {
    for (const side of sides) {
      const tenant = side.name;
      expect(
        seriesOf(samples, 'paysync_upstream_requests_total', {
          operation: 'getPaymentIntent',
          outcome: 'ok',
          tenant,
        })?.value,
      ).toBe(side.intents);
      expect(
        seriesOf(samples, 'paysync_upstream_request_duration_seconds_count', {
          operation: 'getPaymentIntent',
          tenant,
        })?.value,
      ).toBeGreaterThanOrEqual(side.intents);
    }
    const throttled = (tenant: string) => ({
      throttles: seriesOf(samples, 'paysync_upstream_throttles_total', {
        operation: 'getPaymentIntent',
        tenant,
      })?.value,
      requests: seriesOf(samples, 'paysync_upstream_requests_total', {
        operation: 'getPaymentIntent',
        outcome: 'throttled',
        tenant,
      })?.value,
      retries: seriesOf(samples, 'paysync_upstream_retries_total', {
        operation: 'getPaymentIntent',
        reason: 'throttled',
        tenant,
      })?.value,
    });
    expect(throttled('shop-ci')).toEqual({ throttles: 2, requests: 2, retries: 2 });
    expect(throttled('shop-sn')).toEqual({
      throttles: undefined,
      requests: undefined,
      retries: undefined,
    });
  });

  it('labels every series of the tenants’ own metrics, and no process-wide one', () => {
    const tenantSeries = samples.filter((sample) =>
      /^paysync_(webhook|inbox|sync|job|upstream|outbox)_/.test(sample.name),
    );
    expect(tenantSeries.length).toBeGreaterThan(20);
    // Every series of these families belongs to a tenant of this process, none to nobody.
    for (const sample of tenantSeries) {
      expect(['shop-sn', 'shop-ci'], `${sample.name} ${JSON.stringify(sample.labels)}`).toContain(
        sample.labels.tenant,
      );
    }
    // A tenant-only counter reads 0 for each tenant before anything moves it.
    for (const side of sides) {
      expect(
        seriesOf(samples, 'paysync_inbox_unclassified_total', { tenant: side.name })?.value,
      ).toBe(0);
    }
    const processWide = samples.filter((sample) => sample.name.startsWith('paysync_process_'));
    expect(processWide.length).toBeGreaterThan(0);
    for (const sample of processWide) expect(sample.labels.tenant).toBeUndefined();
  });

  it("fails one tenant's job for good on its own tenant, and the example rule names that tenant", async () => {
    const failed = { queue: 'scheduled', job: 'no-such-task', final: 'true' };
    expect(
      seriesOf(samples, 'paysync_job_failures_total', { ...failed, tenant: 'shop-sn' })?.value,
    ).toBe(1);
    expect(
      seriesOf(samples, 'paysync_job_failures_total', { ...failed, tenant: 'shop-ci' }),
    ).toBeUndefined();
    if (!PROMTOOL) {
      console.warn(
        'promtool is not installed (Debian package prometheus): the rule was not evaluated',
      );
      return;
    }
    // PaysyncJobsFailingForGood keeps `tenant` in its `by`: it fires for shop-sn, by name.
    const dir = mkdtempSync(join(tmpdir(), 'paysync-tenants-rules-'));
    try {
      const testFile = join(dir, 'rules.test.yml');
      writeFileSync(
        testFile,
        JSON.stringify({
          rule_files: [RULES],
          evaluation_interval: '1m',
          tests: [
            {
              interval: '1m',
              // A counter was 0 when the process started, and the scraped value since.
              input_series: samples
                .filter((sample) => sample.name === 'paysync_job_failures_total')
                .map((sample) => ({
                  series: seriesName(sample),
                  values: `0 ${sample.value}+0x20`,
                })),
              alert_rule_test: [
                {
                  eval_time: '5m',
                  alertname: 'PaysyncJobsFailingForGood',
                  exp_alerts: [
                    {
                      exp_labels: {
                        severity: 'ticket',
                        queue: 'scheduled',
                        job: 'no-such-task',
                        tenant: 'shop-sn',
                      },
                      exp_annotations: {
                        summary:
                          'paysync job no-such-task on scheduled of tenant shop-sn failed for good',
                        description:
                          'Inspect the failed job at /admin/queues or in the worker logs, fix the cause, then retry it.',
                      },
                    },
                  ],
                },
              ],
            },
          ],
        }),
      );
      const evaluated = await promtool(['test', 'rules', testFile]);
      expect(evaluated.output).toContain('SUCCESS');
      expect(evaluated.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
