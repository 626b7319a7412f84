import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * How long a client may take to send a request's headers. Node's default (a minute, checked
 * every 30 s) let a client trickling headers hold a connection for over a minute.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks the header and request timeouts (its default is every 30 s). */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * The host's own address: a reverse proxy on this machine (and every connection it forwards)
 * comes from it, so limiting it per address would limit every client together.
 */
const THIS_HOST = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export interface GuardedServerOptions {
  /**
   * Open connections one client address may hold; past it a new one is closed. 0: no limit.
   * The host's own address (127.0.0.1, ::1: a local proxy) is not limited per address.
   */
  readonly connectionsPerClient: number;
  /** A whole request's limit, headers and body. @defaultValue 70000 */
  readonly requestTimeoutMs?: number;
}

/**
 * An HTTP server that a slow or greedy client cannot take over: headers within
 * {@link HEADERS_TIMEOUT_MS}, and at most `connectionsPerClient` open connections per client
 * address (the socket's: behind a proxy every connection is the proxy's; a proxy on this host,
 * at 127.0.0.1 or ::1, is not limited per address, only by the server's total). Every port
 * paysync listens on is one: the receiver's, the tenants' front, the ops port, and the metrics
 * port of `work` and `schedule`. A shared leaf (src/, not a component) so that src/metrics,
 * in the same layer as src/lifecycle, may use it too.
 */
export function createGuardedServer(
  handler: RequestListener,
  options: GuardedServerOptions,
): Server {
  const server = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_MS }, handler);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = options.requestTimeoutMs ?? 70_000;
  const limit = options.connectionsPerClient;
  if (limit > 0) {
    const open = new Map<string, number>();
    server.on('connection', (socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      if (THIS_HOST.has(address)) return;
      const count = (open.get(address) ?? 0) + 1;
      if (count > limit) {
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return server;
}
