import { connect, type Socket } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { until } from './until.ts';

/**
 * Slow and plain clients of a port on this host, each from an address of its own: every 127.x
 * address reaches a port bound to 127.0.0.1 or 0.0.0.0, so 127.0.0.2, .3… play distinct
 * clients (127.0.0.1, where a local proxy sits, is not limited per address). For the tests of
 * issue 38.5: a slow client cannot hold a port.
 */
export interface SlowSocket {
  readonly socket: Socket;
  /** Resolves when the server (or the test) has closed it. */
  readonly closed: Promise<void>;
}

/** A connection from `localAddress` that sends half of a request's headers, then nothing. */
export async function holdSlowSocket(
  port: number,
  localAddress: string,
  firstLine = 'GET / HTTP/1.1',
): Promise<SlowSocket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  // Read what the server says (a 408), so its close reaches us.
  socket.resume();
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`${firstLine}\r\nHost: x\r\n`);
  return { socket, closed };
}

/** How many of `slow` are still open. */
export function stillOpen(slow: readonly SlowSocket[]): number {
  return slow.filter(({ socket }) => !socket.destroyed && !socket.closed).length;
}

/**
 * `GET path` from `localAddress` on a new connection: the answer's status, or why there was
 * none within `withinMs`.
 */
export function getFrom(
  port: number,
  localAddress: string,
  path: string,
  withinMs = 1000,
): Promise<number | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer within ${withinMs} ms`);
    }, withinMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer === '' ? 'closed without an answer' : answer.split('\r\n')[0]!);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status) {
        clearTimeout(timer);
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

/** Whether `slow` is closed within `withinMs`: 'closed' or 'still open'. */
export function closedWithin(slow: SlowSocket, withinMs: number): Promise<string> {
  return Promise.race([
    slow.closed.then(() => 'closed'),
    new Promise<string>((resolve) => setTimeout(() => resolve('still open'), withinMs)),
  ]);
}

/**
 * The two checks of a port against slow clients, as `it`s of the caller's `describe`: one
 * address (127.0.0.2) held to `perClient` connections that trickle their headers, those past it
 * closed at once, while another (127.0.0.3) is answered on `path`; then a slow one closed after
 * the 10 s header timeout. `port` is read when the tests run (the caller's `beforeAll` sets it).
 */
export function slowClientChecks(options: {
  readonly port: () => number;
  readonly path: string;
  readonly perClient: number;
}): void {
  const { path, perClient } = options;
  const held: SlowSocket[] = [];
  const holdSlow = async () => {
    const slow = await holdSlowSocket(options.port(), '127.0.0.2', `GET ${path} HTTP/1.1`);
    held.push(slow);
    return slow;
  };
  afterAll(() => {
    for (const { socket } of held) socket.destroy();
  });

  it(`holds one address to its connection limit, closing the rest at once; another address is answered on ${path} within a second`, async () => {
    const slow: SlowSocket[] = [];
    for (let i = 0; i < perClient * 3; i += 1) slow.push(await holdSlow());
    await until(async () => stillOpen(slow) <= perClient || undefined, {
      message: `at most ${perClient} slow connections left open (${stillOpen(slow)} are)`,
      timeoutMs: 2000,
    });
    expect(stillOpen(slow)).toBe(perClient);
    expect(await getFrom(options.port(), '127.0.0.3', path)).toBe(200);
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
}
