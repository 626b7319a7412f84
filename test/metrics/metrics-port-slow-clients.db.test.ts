import { afterAll, beforeAll, describe } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startWorkerProcess, type WorkerProcess } from '../processing/support/worker-process.ts';
import { closedPort } from '../support/run-cli.ts';
import { slowClientChecks } from '../support/slow-sockets.ts';
import { testDialect } from '../support/test-database.ts';

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
    worker?.child.kill('SIGTERM');
    if (worker) await worker.exited;
    await fixture?.cleanup();
  });

  slowClientChecks({ port: () => port, path: '/metrics', perClient: PER_CLIENT });
});
