import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startPaysync, type RunningPaysync } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';
import { startRelayConsumer, type RelayConsumer } from '../relay/support/relay-consumer.ts';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from './support/otlp-receiver.ts';

let fixture: DaemonFixture | undefined;
let receiver: OtlpReceiver | undefined;
let daemon: RunningPaysync | undefined;
let consumer: RelayConsumer | undefined;
afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  await fixture?.cleanup();
  await receiver?.close();
  await consumer?.close();
  fixture = undefined;
  receiver = undefined;
  daemon = undefined;
  consumer = undefined;
});

const SERVER = 2;
const PHONE = '+221771234567';

function byId(spans: readonly ReceivedSpan[]): Map<string, ReceivedSpan> {
  return new Map(spans.map((span) => [span.spanId, span]));
}

/** The span's ancestors' names, nearest first, within its trace. */
function ancestry(span: ReceivedSpan, spans: Map<string, ReceivedSpan>): string[] {
  const names: string[] = [];
  let parent = spans.get(span.parentSpanId);
  while (parent) {
    expect(parent.traceId).toBe(span.traceId);
    names.push(parent.name);
    parent = spans.get(parent.parentSpanId);
  }
  return names;
}

/**
 * Issue 43's proof: `paysync start` with OTEL_EXPORTER_OTLP_ENDPOINT pointed at a real OTLP/HTTP
 * receiver; the simulator's signed webhooks for a settled payment and a failing transfer make one
 * connected trace each, from the request to the booking and on to the transfer's alert and the
 * relay's delivery of its `transfer.failed` event to the merchant's endpoint.
 */
describe(`traces of a webhook's journey, on ${testDialect()}`, () => {
  it.each([
    ['http/protobuf', 'application/x-protobuf'],
    ['http/json', 'application/json'],
  ])(
    'over %s: one connected trace per webhook, from the request to the booking, the alert and the relay delivery; no secret, no full number',
    async (protocol, contentType) => {
      receiver = await startOtlpReceiver();
      fixture = await createDaemonFixture();
      // The merchant's endpoint, subscribed to transfer events (docs/relay.md).
      const secrets: string[] = [];
      consumer = await startRelayConsumer(secrets);
      const added = await runCliInProcess(
        ['endpoints', 'add', '--url', consumer.url, '--events', 'transfer.*', '--json'],
        { env: fixture.env },
      );
      expect(added.code, added.stderr).toBe(0);
      secrets.push((JSON.parse(added.stdout) as { secret: string }).secret);
      daemon = await startPaysync('start', {
        ...fixture.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'paysync-traces-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        // The inbox recovery sweep every second: scheduled work has traces of its own.
        PAYSYNC_RECOVERY_CRON: '* * * * * *',
      });
      const running = daemon;
      await until(() => running.output().includes('workers taking jobs'), {
        message: `paysync start running (output: ${running.output()})`,
      });
      await fixture.client.createWebhook({
        url: `http://127.0.0.1:${running.port}${fixture.config.webhook.path}`,
      });

      const intent = fixture.sim.control.createPaymentIntent({
        amount: 5_000,
        purchaseReference: 'traces-intent',
      });
      fixture.sim.control.settle(intent.id, 'successful');
      const transfer = fixture.sim.control.createTransfer({
        amount: 7_500,
        reference: 'traces-transfer',
        destination: { number: PHONE },
      });
      fixture.sim.control.settle(transfer.id, 'failed');

      const spans = receiver.spans;
      const applyOf = (id: string) =>
        spans.find(
          (s) =>
            s.name === 'paysync.apply' &&
            (s.attributes['paysync.item.ids'] as unknown[] | undefined)?.includes(id),
        );
      const alertOf = (id: string) =>
        spans.find(
          (s) => s.name === 'paysync.follow_up alert' && s.attributes['paysync.item.id'] === id,
        );
      await until(() => applyOf(intent.id) && applyOf(transfer.id) && alertOf(transfer.id), {
        message: `both items booked and the alert consumed, in the exported spans (${spans.length} so far: ${[...new Set(spans.map((s) => s.name))].join(', ')})`,
        timeoutMs: 60_000,
      });
      // A webhook whose item was already booked by an earlier one still has its batch (which
      // finds nothing new to fetch): wait for those, and for every span's parent.
      const commitOf = (request: ReceivedSpan) =>
        spans.find((s) => s.name === 'paysync.inbox.commit' && s.parentSpanId === request.spanId);
      const batchOf = (commit: ReceivedSpan) =>
        spans.find(
          (s) =>
            s.name === 'paysync.sync.batch' &&
            (s.parentSpanId === commit.spanId ||
              s.links.some((link) => link.spanId === commit.spanId)),
        );
      const accepted = () =>
        spans.filter((s) => s.kind === SERVER && s.attributes['http.response.status_code'] === 202);
      await until(
        () =>
          accepted().length >= 4 &&
          accepted().every((request) => {
            const commit = commitOf(request);
            return commit !== undefined && batchOf(commit) !== undefined;
          }),
        { message: 'a batch span for every accepted webhook' },
      );
      await until(
        () => {
          const exported = byId(spans);
          return spans.every((s) => s.parentSpanId === '' || exported.has(s.parentSpanId));
        },
        { message: "every exported span's parent exported too" },
      );
      const all = byId(spans);
      expect(spans[0]!.resource['service.name']).toBe('paysync-traces-test');
      expect(new Set(receiver.contentTypes)).toEqual(new Set([contentType]));

      // Every accepted webhook: a server span at the root of its trace, with the signature's
      // outcome, its inbox commit inside, and a sync batch that continues it or links to it.
      const requests = spans.filter((s) => s.kind === SERVER);
      expect(requests.length).toBeGreaterThanOrEqual(4);
      for (const request of requests) {
        expect(request.parentSpanId).toBe('');
        expect(request.name).toBe(`POST ${fixture.config.webhook.path}`);
        expect(request.attributes['paysync.webhook.signature']).toBe('valid');
        expect([200, 202]).toContain(request.attributes['http.response.status_code']);
        const commit = commitOf(request);
        expect(commit, `the inbox commit of ${request.spanId}`).toBeDefined();
        if (request.attributes['http.response.status_code'] !== 202) continue;
        const batch = batchOf(commit!);
        expect(
          batch,
          `a sync batch for inbox row ${commit!.attributes['paysync.inbox.ids']}`,
        ).toBeDefined();
        expect(batch!.links.map((link) => link.spanId)).toContain(commit!.spanId);
      }

      // Each item: request → inbox commit → batch → apply transaction, in one trace; the item's
      // fetch and its upstream reads under its own webhook's trace (the batch's, or linked to it).
      for (const item of [intent, transfer]) {
        const apply = applyOf(item.id)!;
        expect(ancestry(apply, all)).toEqual([
          'paysync.sync.batch',
          'paysync.inbox.commit',
          `POST ${fixture.config.webhook.path}`,
        ]);
        const fetch = spans.find(
          (s) =>
            s.name === 'paysync.sync.item' &&
            s.attributes['paysync.item.id'] === item.id &&
            (s.parentSpanId === apply.parentSpanId ||
              s.links.some((link) => link.spanId === apply.parentSpanId)),
        );
        expect(fetch, `the fetch of ${item.id} in the batch that booked it`).toBeDefined();
        expect(fetch!.attributes['paysync.item.kind']).toBe(item.kind);
        expect(ancestry(fetch!, all).at(-1)).toBe(`POST ${fixture.config.webhook.path}`);
        const reads = spans.filter((s) => s.parentSpanId === fetch!.spanId);
        expect(reads.length).toBeGreaterThan(0);
        for (const read of reads) {
          expect(read.name).toMatch(/^upstream (get|list)\w+$/);
          expect(read.attributes['paysync.upstream.operation']).toBe(read.name.slice(9));
          expect(read.attributes['http.response.status_code']).toBe(200);
          expect(read.attributes['paysync.upstream.rate_limited']).toBe(0);
        }
      }

      // The failing transfer's alert continues the trace of the transaction that called for it.
      const alert = alertOf(transfer.id)!;
      expect(alert.parentSpanId).toBe(applyOf(transfer.id)!.spanId);
      expect(alert.traceId).toBe(applyOf(transfer.id)!.traceId);

      // So does the relay's delivery of its event to the merchant's endpoint.
      const deliveryOf = (id: string) =>
        spans.find(
          (s) =>
            s.name === 'paysync.relay.deliver' &&
            s.attributes['paysync.relay.event_type'] === 'transfer.failed' &&
            s.attributes['paysync.item.id'] === id,
        );
      await until(() => deliveryOf(transfer.id), {
        message: `the delivery of transfer.failed exported (${consumer!.events.length} events received)`,
      });
      const delivery = deliveryOf(transfer.id)!;
      expect(delivery.parentSpanId).toBe(applyOf(transfer.id)!.spanId);
      expect(ancestry(delivery, byId(spans)).at(-1)).toBe(`POST ${fixture.config.webhook.path}`);
      expect(delivery.attributes['paysync.relay.outcome']).toBe('delivered');
      expect(consumer.events.map((event) => event.type)).toContain('transfer.failed');

      // `paysync show` names the traces the transfer's webhooks ran in: each a request's trace,
      // one of them a trace its fetch ran in (each item's fetch runs in its own webhook's trace).
      const shown = await runCliInProcess(['show', transfer.id], { env: fixture.env });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^ *Traces \(docs\/observability.md\): inbox \d+ [0-9a-f]{32}/m);
      const shownJson = JSON.parse(
        (await runCliInProcess(['show', transfer.id, '--json'], { env: fixture.env })).stdout,
      ) as { inboxEvents: { traceId: string | null }[] };
      const shownTraces = shownJson.inboxEvents.map((event) => event.traceId);
      const requestTraces = new Set(requests.map((request) => request.traceId));
      expect(shownTraces.length).toBeGreaterThan(0);
      for (const traceId of shownTraces) expect(requestTraces).toContain(traceId);
      const fetchTraces = spans
        .filter(
          (s) => s.name === 'paysync.sync.item' && s.attributes['paysync.item.id'] === transfer.id,
        )
        .map((s) => s.traceId);
      expect(shownTraces.some((traceId) => fetchTraces.includes(traceId!))).toBe(true);
      for (const traceId of shownTraces) expect(shown.stdout).toContain(traceId);

      // Scheduled work: a trace of its own per tick, rooted at the task's span.
      await until(() => spans.some((s) => s.name === 'paysync.scheduled recover-inbox'), {
        message: 'a recover-inbox tick exported',
      });
      const tick = spans.find((s) => s.name === 'paysync.scheduled recover-inbox')!;
      expect(tick.parentSpanId).toBe('');
      expect(tick.attributes).toMatchObject({
        'paysync.scheduled.task': 'recover-inbox',
        'paysync.scheduled.outcome': expect.any(String),
      });
      expect(spans.filter((s) => s.traceId === tick.traceId && s.kind === SERVER)).toEqual([]);

      // No attribute carries a secret, a credential, the full number or a body.
      const exported = receiver.bodies.join('\n');
      for (const secret of [
        fixture.env.PAYSYNC_API_KEY!,
        fixture.env.PAYSYNC_WEBHOOK_SECRET!,
        secrets[0]!,
        PHONE,
        PHONE.slice(1),
        PHONE.slice(4),
      ]) {
        expect(exported).not.toContain(secret);
      }
      for (const span of spans) {
        for (const value of Object.values(span.attributes)) {
          expect(String(value)).not.toMatch(/[{}]/);
          expect(String(value).length).toBeLessThan(200);
        }
      }

      // Logs written inside a span name it.
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    },
    120_000,
  );
});
