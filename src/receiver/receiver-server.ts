import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertRuntime } from '../alerts/index.ts';
import type { Component } from '../lifecycle/index.ts';
import { createBacklogGate } from './backlog-gate.ts';
import { backpressureAlerts } from './backpressure-alert.ts';
import { createReceiverApp, type ReceiverDependencies } from './receiver-app.ts';

/** Open connections per in-flight request allowed: senders keep idle keep-alive connections. */
const CONNECTIONS_PER_IN_FLIGHT = 4;

export interface ReceiverServerOptions extends Omit<
  ReceiverDependencies,
  'draining' | 'backlogGate'
> {
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** @defaultValue `0.0.0.0` (all interfaces) */
  readonly host?: string;
  /** How long stop() lets in-flight requests finish before cutting them. @defaultValue 10000 */
  readonly drainMs?: number;
  /**
   * Raises `webhook_backlog_full` when the backlog stops intake and resolves it when intake
   * resumes; without it the receiver only logs and counts.
   */
  readonly alerts?: AlertRuntime;
  /** How often the open inbox backlog is counted. @defaultValue 1000 */
  readonly backlogRefreshMs?: number;
  /** How long the backlog stays low before `webhook_backlog_full` resolves. @defaultValue 60000 */
  readonly backpressureCalmMs?: number;
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
  const { maxBacklog, maxInFlight } = options.config.receiver;
  const backlogGate = createBacklogGate({
    db: options.db,
    maxBacklog,
    logger: options.logger,
    ...(options.backlogRefreshMs !== undefined ? { refreshMs: options.backlogRefreshMs } : {}),
    ...(options.alerts
      ? backpressureAlerts({
          db: options.db,
          alerts: options.alerts,
          maxBacklog,
          logger: options.logger,
          ...(options.backpressureCalmMs !== undefined
            ? { calmMs: options.backpressureCalmMs }
            : {}),
        })
      : {}),
  });
  // Built now, not in start(), so a bad signing config fails before anything else starts.
  const app = createReceiverApp({ ...options, backlogGate, draining: () => draining });
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
      // A whole request (headers and body, at most PAYSYNC_WEBHOOK_MAX_BYTES) within 70 s, not
      // Node's 300 s: a sender trickling a body holds one of the in-flight places meanwhile.
      created.requestTimeout = 70_000;
      // Each open connection costs memory (about 20 KB) even idle: past this many, new ones are
      // closed at once and the sender retries.
      created.maxConnections = maxInFlight * CONNECTIONS_PER_IN_FLIGHT;
      // Counted before the first request, so a full inbox is refused from the start.
      await backlogGate.start();
      try {
        await new Promise<void>((resolve, reject) => {
          created.once('error', reject);
          created.listen(options.port, host, () => {
            created.off('error', reject);
            resolve();
          });
        });
      } catch (error) {
        await backlogGate.stop();
        throw error;
      }
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
      await backlogGate.stop();
      options.logger.info('receiver stopped');
    },
  };
}
