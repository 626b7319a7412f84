import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpsServer, type OpsServer } from '../../src/ops/index.ts';
import {
  closedWithin,
  getFrom,
  holdSlowSocket,
  stillOpen,
  type SlowSocket,
} from '../support/slow-sockets.ts';
import { until } from '../support/until.ts';

/**
 * Issue 38.5, "the same settings on the ops port": before, the ops port kept Node's defaults
 * (no cap per client address; a header timeout of a minute, checked every 30 s). One address
 * holding connections that trickle their headers is held to its cap (those past it are closed
 * at once) and loses them after the 10 s header timeout; a request from another address is
 * answered within a second meanwhile. 127.0.0.2 plays the slow client, 127.0.0.3 the operator.
 * The ops port caps no total of connections, so the answer proves only that the slow ones did
 * not starve it here.
 */
const PER_CLIENT = 4;

let server: OpsServer;
const held: SlowSocket[] = [];

beforeAll(async () => {
  server = createOpsServer({
    port: 0,
    host: '127.0.0.1',
    logger: pino({ level: 'silent' }),
    connectionsPerClient: PER_CLIENT,
  });
  await server.start();
});
afterAll(async () => {
  for (const { socket } of held) socket.destroy();
  await server?.stop();
});

const holdSlow = async () => {
  const slow = await holdSlowSocket(server.port, '127.0.0.2', 'GET /healthz HTTP/1.1');
  held.push(slow);
  return slow;
};

describe('the ops port against slow clients', () => {
  it('holds one address to its connection limit, closing the rest at once; another address is answered within a second', async () => {
    const slow: SlowSocket[] = [];
    for (let i = 0; i < PER_CLIENT * 3; i += 1) slow.push(await holdSlow());
    await until(async () => stillOpen(slow) <= PER_CLIENT || undefined, {
      message: `at most ${PER_CLIENT} slow connections left open (${stillOpen(slow)} are)`,
      timeoutMs: 2000,
    });
    expect(stillOpen(slow)).toBe(PER_CLIENT);
    expect(await getFrom(server.port, '127.0.0.3', '/healthz')).toBe(200);
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
