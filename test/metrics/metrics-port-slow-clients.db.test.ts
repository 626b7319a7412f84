import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startWorkerProcess, type WorkerProcess } from '../processing/support/worker-process.ts';
import { closedPort } from '../support/run-cli.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 38.5, "the same settings on every port": the metrics port of a real `paysync work`
 * listens like the receiver's and the ops port. One address holding connections that trickle
 * their headers is held to PAYSYNC_CONNECTIONS_PER_CLIENT of them (those past it are closed at
 * once) and loses them after the 10 s header timeout; a scrape from another address is answered
 * within a second meanwhile. Every 127.x address reaches the port: 127.0.0.2 plays the slow
 * client, 127.0.0.3 Prometheus (127.0.0.1, where a local proxy sits, is not limited per
 * address). Before, this port kept Node's defaults: no cap per address, and a header timeout
 * of a minute checked every 30 s. The metrics port caps no total of connections (neither does
 * the ops port), so the scrape answering proves only that the slow ones did not starve it here.
 */
const PER_CLIENT = 4;

describe(`the metrics port of paysync work against slow clients on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let worker: WorkerProcess;
  let port: number;
  const held: Socket[] = [];

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
    for (const socket of held) socket.destroy();
    worker?.child.kill('SIGTERM');
    if (worker) await worker.exited;
    await fixture?.cleanup();
  });

  /** A connection from 127.0.0.2 that sends half its headers and then nothing. */
  async function holdSlow(): Promise<{ socket: Socket; closed: Promise<void> }> {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    // Read what the server says (a 408), so its close reaches us.
    socket.resume();
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    held.push(socket);
    return { socket, closed };
  }

  /** GET /metrics from 127.0.0.3 on a new connection, given a second to answer. */
  function scrape(): Promise<number | string> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.3' });
      let answer = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve('no answer within 1 s');
      }, 1000);
      socket.on('error', (error) => resolve(error.message));
      socket.on('data', (chunk) => {
        answer += chunk.toString();
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
        if (status) {
          clearTimeout(timer);
          socket.destroy();
          resolve(Number(status[1]));
        }
      });
      socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
  }

  it('holds one address to its connection limit, closing the rest at once; a scrape from another is answered within a second', async () => {
    const slow: { socket: Socket; closed: Promise<void> }[] = [];
    for (let i = 0; i < PER_CLIENT * 3; i += 1) slow.push(await holdSlow());
    const open = () => slow.filter(({ socket }) => !socket.destroyed && !socket.closed).length;
    await until(async () => open() <= PER_CLIENT || undefined, {
      message: `at most ${PER_CLIENT} slow connections left open (${open()} are)`,
      timeoutMs: 2000,
    });
    expect(open()).toBe(PER_CLIENT);
    expect(await scrape()).toBe(200);
    for (const { socket } of slow) socket.destroy();
  });

  it('closes a connection whose headers do not come within the header timeout (10 s)', async () => {
    // The server counts the first test's connections gone once it sees them close.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { closed } = await holdSlow();
    const started = Date.now();
    const outcome = await Promise.race([
      closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000)),
    ]);
    expect(outcome).toBe('closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 20_000);
});
