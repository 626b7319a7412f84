import type { Express } from 'express';
import type { AlertRuntime } from '../alerts/index.ts';
import type { Component } from '../lifecycle/index.ts';
import { createBacklogGate } from './backlog-gate.ts';
import { backpressureAlerts } from './backpressure-alert.ts';
import { senderPort } from './http-listener.ts';
import { createReceiverApp, type ReceiverDependencies } from './receiver-app.ts';

export interface ReceiverServerOptions extends Omit<
  ReceiverDependencies,
  'draining' | 'backlogGate'
> {
  /** 0 picks a free port (tests). Unused when `listen` is false. */
  readonly port: number;
  /**
   * False in a process serving several tenants: this tenant's receiver does not listen, its
   * `app` is mounted on the process's one port (createTenantsFront), and start/stop only count
   * the backlog and drain. @defaultValue true
   */
  readonly listen?: boolean;
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
  /** The Express app that answers the webhooks (what a shared front mounts). */
  readonly app: Express;
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
    ...(options.metrics ? { metrics: options.metrics } : {}),
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
  const host = options.host ?? '0.0.0.0';
  if (options.listen === false) {
    return {
      name: 'receiver',
      app,
      get port(): number {
        throw new Error('this receiver is mounted on a shared port: ask the front for it');
      },
      get url(): string {
        throw new Error('this receiver is mounted on a shared port: ask the front for it');
      },
      start: () => backlogGate.start(),
      async stop() {
        // The front stops taking requests first; refuse what still reaches this tenant.
        draining = true;
        await backlogGate.stop();
      },
    };
  }
  const door = senderPort('receiver', {
    port: options.port,
    host,
    maxInFlight,
    connectionsPerClient: options.config.receiver.connectionsPerClient,
  });
  return {
    name: 'receiver',
    app,
    get port() {
      return door.port;
    },
    get url() {
      return door.url;
    },
    async start() {
      // Counted before the first request, so a full inbox is refused from the start.
      await backlogGate.start();
      try {
        await door.listen(app);
      } catch (error) {
        await backlogGate.stop();
        throw error;
      }
      options.logger.info(
        { url: door.url, path: options.config.webhook.path },
        'receiver listening',
      );
    },
    async stop() {
      draining = true;
      if (!(await door.close(options.drainMs ?? 10_000))) return;
      await backlogGate.stop();
      options.logger.info('receiver stopped');
    },
  };
}
