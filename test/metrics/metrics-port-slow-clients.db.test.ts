import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startWorkerProcess, type WorkerProcess } from '../processing/support/worker-process.ts';
import { closedPort } from '../support/run-cli.ts';
import {
  closedWithin,
  getFrom,
  holdSlowSocket,
  stillOpen,
  type SlowSocket,
} from '../support/slow-sockets.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 38.5, "the same settings on every port": the metrics port of a real `paysync work`
 * listens like the receiver's and the ops port. One address holding connections that trickle
 * their headers is held to PAYSYNC_CONNECTIONS_PER_CLIENT of them (those past it are closed at
 * once) and loses them after the 10 s header timeout; a scrape from another address is answered
 * within a second meanwhile. 127.0.0.2 plays the slow client, 127.0.0.3 Prometheus. Before,
 * this port kept Node's defaults: no cap per address, and a header timeout of a minute checked
 * every 30 s. The metrics port caps no total of connections (neither does the ops port), so the
 * scrape answering proves only that the slow ones did not starve it here.
 */
const PER_CLIENT = 4;

describe(`the metrics port of paysync work against slow clients on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let worker: WorkerProcess;
  let port: number;
  const held: SlowSocket[] = [];

  beforeAll(async () => {
    fixture = await createDaemonFixture();
    port = await closedPort();
    worker = await startWorkerProcess({
      ...fixture.env,
      PAYSYNC_METRICS_PORT: String(port),
      PAYSYNC_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
    });
  });

  afterAll(async () => {
    for (const { socket } of held) socket.destroy();
    worker?.child.kill('SIGTERM');
    if (worker) await worker.exited;
    await fixture?.cleanup();
  });

  const holdSlow = async () => {
    const slow = await holdSlowSocket(port, '127.0.0.2', 'GET /metrics HTTP/1.1');
    held.push(slow);
    return slow;
  };

  it('holds one address to its connection limit, closing the rest at once; a scrape from another is answered within a second', async () => {
    const slow: SlowSocket[] = [];
    for (let i = 0; i < PER_CLIENT * 3; i += 1) slow.push(await holdSlow());
    await until(async () => stillOpen(slow) <= PER_CLIENT || undefined, {
      message: `at most ${PER_CLIENT} slow connections left open (${stillOpen(slow)} are)`,
      timeoutMs: 2000,
    });
    expect(stillOpen(slow)).toBe(PER_CLIENT);
    expect(await getFrom(port, '127.0.0.3', '/metrics')).toBe(200);
    for (const { socket } of slow) socket.destroy();
  });

  it('closes a connection whose headers do not come within the header timeout (10 s)', async () => {
    // The server counts the first test's connections gone once it sees them close.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const slow = await holdSlow();
    const started = Date.now();
    expect(await closedWithin(slow, 15_000)).toBe('closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 20_000);
});
