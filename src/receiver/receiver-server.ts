import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Component } from '../lifecycle/index.ts';
import { createReceiverApp, type ReceiverDependencies } from './receiver-app.ts';

export interface ReceiverServerOptions extends Omit<ReceiverDependencies, 'draining'> {
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** @defaultValue `0.0.0.0` (all interfaces) */
  readonly host?: string;
  /** How long stop() lets in-flight requests finish before cutting them. @defaultValue 10000 */
  readonly drainMs?: number;
}

export interface ReceiverServer extends Component {
  /** The bound port, once started (useful with port 0). */
  readonly port: number;
  /** `http://<host>:<port>`, once started. */
  readonly url: string;
}

/**
 * The receiver as a lifecycle component. It does not own the database, Redis or queues:
 * the caller closes those after this stops. `stop()` stops intake first (no new
 * connections, 503 on kept-alive ones), lets in-flight requests commit and answer, then
 * closes; requests still running after `drainMs` are cut.
 */
export function createReceiverServer(options: ReceiverServerOptions): ReceiverServer {
  let draining = false;
  // Built now, not in start(), so a bad signing config fails before anything else starts.
  const app = createReceiverApp({ ...options, draining: () => draining });
  let server: Server | undefined;
  let bound: AddressInfo | undefined;
  const host = options.host ?? '0.0.0.0';
  return {
    name: 'receiver',
    get port() {
      if (!bound) throw new Error('the receiver has not started');
      return bound.port;
    },
    get url() {
      if (!bound) throw new Error('the receiver has not started');
      const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      return `http://${shown}:${bound.port}`;
    },
    async start() {
      const created = createServer(app);
      // Senders reuse connections. If the server closed idle sockets sooner than the sender
      // does (Node's default is 5 s), a delivery written onto a socket being closed fails
      // with ECONNRESET and has to be retried; outlasting common client idle timeouts (and
      // load balancers' 60 s) avoids that race.
      created.keepAliveTimeout = 65_000;
      created.headersTimeout = 66_000;
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(options.port, host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      server = created;
      bound = created.address() as AddressInfo;
      options.logger.info(
        { url: this.url, path: options.config.webhook.path },
        'receiver listening',
      );
    },
    async stop() {
      if (!server) return;
      draining = true;
      const closing = server;
      server = undefined;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      // A kept-alive socket turns idle once its in-flight response is sent; close it then
      // instead of waiting out the keep-alive timeout.
      closing.closeIdleConnections();
      const sweep = setInterval(() => closing.closeIdleConnections(), 50);
      const cut = setTimeout(() => closing.closeAllConnections(), options.drainMs ?? 10_000);
      await closed;
      clearInterval(sweep);
      clearTimeout(cut);
      options.logger.info('receiver stopped');
    },
  };
}
