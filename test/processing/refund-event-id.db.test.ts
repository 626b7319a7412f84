import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent, insertInboxEvent } from '../../src/inbox/index.ts';
import { journalsFor, openDiscrepancies } from '../../src/ledger/index.ts';
import { enqueueIngest } from '../../src/queues/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from './support/daemon-fixture.ts';
import { until } from '../support/until.ts';

const EVENT_ID = 55555;

/** A pass-through in front of the simulator that notes every request line paysync sends. */
async function recordingProxy(
  target: string,
): Promise<{ url: string; seen: string[]; server: Server }> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const forwarded = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

let fixture: DaemonFixture | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  fixture = undefined;
  proxy = undefined;
});

/**
 * 7.B6 through the whole pipeline: ingest classifies the event, queues a sync of the refund it
 * names, and the sync fetches and books that refund. The numeric top-level id is the event's
 * own and must never be fetched as a refund.
 */
describe(`a refund event whose top-level id is the event's, on ${testDialect()}`, () => {
  it('syncs the refund named by refundId and never fetches the event id', async () => {
    fixture = await createDaemonFixture();
    const recorder = await recordingProxy(fixture.sim.url);
    proxy = recorder.server;
    await fixture.startDaemon(['workers'], { PAYSYNC_UPSTREAM_URL: recorder.url });

    const transfer = fixture.sim.control.createTransfer({
      amount: 10_000,
      reference: 'ref-refund-event-id',
      isIrt: true,
      destination: { number: '+221771112255' },
    });
    fixture.sim.control.settle(transfer.id, 'successful');
    const refund = (await fixture.client.createTransferRefund({ transactionId: transfer.id })) as {
      id: number;
    };
    fixture.sim.control.settle(refund.id, 'successful');
    expect(refund.id).not.toBe(EVENT_ID);

    const { inboxId } = await insertInboxEvent(fixture.database.db, {
      receivedAt: new Date(),
      dedupeKey: `test:refund-event-id:${Math.random()}`,
      eventId: undefined,
      eventType: undefined,
      rawBody: Buffer.from(
        JSON.stringify({
          id: EVENT_ID,
          event: 'refund.completed',
          refundId: refund.id,
          transferId: transfer.id,
        }),
      ),
      headers: {},
    });
    await enqueueIngest(fixture.daemon!.queues, inboxId);

    const { db } = fixture.database;
    let row = await findInboxEvent(db, inboxId);
    await until(async () => (row = await findInboxEvent(db, inboxId)), {
      accept: (r) => !r || (r.status !== 'received' && r.status !== 'processing'),
      message: `inbox row ${inboxId} settled`,
    }).catch(() => undefined); // asserted below

    expect(row).toMatchObject({
      status: 'processed',
      lastError: null,
      resourceKind: 'refund',
      resourceId: String(refund.id),
    });
    const [journal] = await journalsFor(fixture.database.db, 'refund', String(refund.id));
    expect(journal?.lines.map((line) => line.account).sort()).toEqual([
      'payouts:recipients',
      'service:transfer-irt',
    ]);
    expect(await journalsFor(fixture.database.db, 'refund', String(EVENT_ID))).toEqual([]);
    expect(await openDiscrepancies(fixture.database.db)).toEqual([]);
    expect(recorder.seen).toContain(`GET /refunds/${refund.id}`);
    expect(recorder.seen.filter((line) => line.includes(String(EVENT_ID)))).toEqual([]);
  });
});
