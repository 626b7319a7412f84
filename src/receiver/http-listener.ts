import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedServer } from '../guarded-server.ts';

/** Open connections per in-flight request allowed: senders keep idle keep-alive connections. */
const CONNECTIONS_PER_IN_FLIGHT = 4;

/** Where and how a port for webhook senders listens. */
export interface SenderPortOptions {
  readonly port: number;
  readonly host: string;
  readonly maxInFlight: number;
  /** Open connections per client address (`PAYSYNC_CONNECTIONS_PER_CLIENT`); 0: no limit. */
  readonly connectionsPerClient: number;
}

/**
 * Listens for webhook senders on `port` (0: a free one): the timeouts and connection caps every
 * receiver port shares, one tenant's (createReceiverServer) or several's (createTenantsFront).
 * Headers must come within 10 s and one address holds at most `connectionsPerClient`
 * connections (createGuardedServer). Rejects when the port cannot be bound.
 */
export async function listenForSenders(
  handler: RequestListener,
  options: SenderPortOptions,
): Promise<{ server: Server; address: AddressInfo }> {
  const created = createGuardedServer(handler, {
    connectionsPerClient: options.connectionsPerClient,
    // A whole request (headers and body, at most PAYSYNC_WEBHOOK_MAX_BYTES) within 70 s, not
    // Node's 300 s: a sender trickling a body holds one of the in-flight places meanwhile.
    requestTimeoutMs: 70_000,
  });
  // Senders reuse connections. If the server closed idle sockets sooner than the sender
  // does (Node's default is 5 s), a delivery written onto a socket being closed fails
  // with ECONNRESET and has to be retried; outlasting common client idle timeouts (and
  // load balancers' 60 s) avoids that race.
  // (The headers timeout counts from a request's first byte, so it does not cut idle ones.)
  created.keepAliveTimeout = 65_000;
  // Each open connection costs memory (about 20 KB) even idle: past this many, new ones are
  // closed at once and the sender retries.
  created.maxConnections = options.maxInFlight * CONNECTIONS_PER_IN_FLIGHT;
  await new Promise<void>((resolve, reject) => {
    created.once('error', reject);
    created.listen(options.port, options.host, () => {
      created.off('error', reject);
      resolve();
    });
  });
  return { server: created, address: created.address() as AddressInfo };
}

/**
 * Stops taking connections, lets in-flight requests answer, then closes; requests still
 * running after `drainMs` are cut.
 */
export async function closeForSenders(server: Server, drainMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A kept-alive socket turns idle once its in-flight response is sent; close it then
  // instead of waiting out the keep-alive timeout.
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  await closed;
  clearInterval(sweep);
  clearTimeout(cut);
}

/** A port for webhook senders, bound by `listen` and drained by `close`. */
export interface SenderPort {
  /** The bound port, once listening (useful with port 0). */
  readonly port: number;
  /** `http://<host>:<port>`, once listening. */
  readonly url: string;
  listen(handler: RequestListener): Promise<void>;
  /** Drains and closes; false when it was not listening. */
  close(drainMs: number): Promise<boolean>;
}

/** {@link listenForSenders} and {@link closeForSenders} as one port; `what` names it in errors. */
export function senderPort(what: string, options: SenderPortOptions): SenderPort {
  let server: Server | undefined;
  let bound: AddressInfo | undefined;
  return {
    get port() {
      if (!bound) throw new Error(`the ${what} has not started`);
      return bound.port;
    },
    get url() {
      if (!bound) throw new Error(`the ${what} has not started`);
      return reachableUrl(options.host, bound.port);
    },
    async listen(handler) {
      const listening = await listenForSenders(handler, options);
      server = listening.server;
      bound = listening.address;
    },
    async close(drainMs) {
      if (!server) return false;
      const closing = server;
      server = undefined;
      await closeForSenders(closing, drainMs);
      return true;
    },
  };
}

/** `http://<host>:<port>` a client on this machine can reach. */
export function reachableUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown}:${port}`;
}
