import { connect, type Socket } from 'node:net';

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
