import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

/**
 * Issue 38.5: slow clients cannot close the receiver's port. One address holding connections
 * that trickle their headers is held to PAYSYNC_CONNECTIONS_PER_CLIENT of them, and loses
 * them after the 10 s header timeout; a sender on another address is still answered. (Every
 * 127.x address reaches the port; 127.0.0.2 and .3 play two clients.)
 */
const PER_CLIENT = 4;

/** POSTs from `localAddress` with a 1 s limit: the status, or the error that ended it. */
function postFrom(
  url: string,
  localAddress: string,
  body: string,
  headers: Record<string, string>,
): Promise<number | string> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const sent = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        timeout: 1000,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('timeout', () => sent.destroy(new Error('no answer within 1 s')));
    sent.on('error', (error) => resolve(error.message));
    sent.end(body);
  });
}

describe(`slow clients on ${testDialect()}`, () => {
  let receiver: ReceiverFixture;
  const held: Socket[] = [];

  beforeAll(async () => {
    receiver = await startReceiverFixture({
      env: {
        // 2 in flight: the whole port takes 8 connections, fewer than the slow ones below.
        PAYSYNC_RECEIVER_MAX_IN_FLIGHT: '2',
        PAYSYNC_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
      },
    });
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await receiver?.cleanup();
  });

  /**
   * A connection from 127.0.0.2 that sends half its headers and then nothing (127.0.0.1, the
   * host's own address where a local proxy sits, is not limited per address).
   */
  async function holdSlow(): Promise<{ socket: Socket; closed: Promise<void> }> {
    const { port } = new URL(receiver.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.2' });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    // Read what the server says (a 408), so its close reaches us.
    socket.resume();
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /webhooks HTTP/1.1\r\nHost: x\r\n');
    held.push(socket);
    return { socket, closed };
  }

  it('holds one address to its connection limit; a signed webhook from another is answered within a second', async () => {
    const slow: { socket: Socket; closed: Promise<void> }[] = [];
    for (let i = 0; i < PER_CLIENT * 3; i += 1) slow.push(await holdSlow());
    const secret = receiver.config.webhookSecrets[0]!;
    const event = signedEvent(secret);
    const status = await postFrom(
      `${receiver.url}${receiver.config.webhook.path}`,
      '127.0.0.3',
      event.body,
      event.headers,
    );
    expect(status).toBe(202);
    expect(await receiver.inboxCount()).toBe(1);
    // The address's connections past its limit were closed at once.
    const open = () => slow.filter(({ socket }) => !socket.destroyed && !socket.closed).length;
    await until(async () => open() <= PER_CLIENT || undefined, {
      message: `at most ${PER_CLIENT} slow connections left open`,
      timeoutMs: 2000,
    });
    expect(open()).toBe(PER_CLIENT);
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
