import { pino } from 'pino';
import { afterAll, beforeAll, describe } from 'vitest';
import { createOpsServer, type OpsServer } from '../../src/ops/index.ts';
import { slowClientChecks } from '../support/slow-sockets.ts';

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
  await server?.stop();
});

describe('the ops port against slow clients', () => {
  slowClientChecks({ port: () => server.port, path: '/healthz', perClient: PER_CLIENT });
});
