import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now: bound to port 0, then released.
 * Another process may take it before the caller does; callers bind it soon after.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no free port found');
  return address.port;
}
