import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { DEFAULT_OPS_HOST } from '../config/index.ts';
import { createGuardedServer } from '../guarded-server.ts';
import type { Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { mountHealthRoutes, metricsRegistry } from '../metrics/index.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { AdminTokens, bearerToken, opsRefusals } from './ops-auth.ts';
import { sendOpsError, sendTooManyFailures } from './ops-errors.ts';

export interface OpsServer extends Component {
  readonly url: string;
  /** The bound port, once started (useful with port 0). */
  readonly port: number;
}

export interface OpsServerOptions {
  /** The ops API and dashboard (createOpsRouter); without them, metrics and health only. */
  readonly routes?: RequestHandler | undefined;
  /** 0 picks a free port. */
  readonly port: number;
  /** @defaultValue `127.0.0.1` (PAYSYNC_OPS_HOST's default) */
  readonly host?: string;
  readonly logger: Logger;
  /** What `/readyz` answers; without it, `/readyz` is not served here. */
  readonly readiness?: () => Promise<{ readonly ready: boolean }>;
  /**
   * When set, `GET /metrics` wants one of these tokens as `Authorization: Bearer` (an admin or
   * a scrape token): the ops port is open beyond loopback. None at all: `/metrics` answers 401
   * to everyone. @defaultValue unset: `/metrics` is open (the port is private)
   */
  readonly metricsTokens?: readonly string[] | undefined;
  /** The process's throttle of failed authentications. @defaultValue one of its own */
  readonly throttle?: AuthThrottle;
  /** Express `trust proxy` (PAYSYNC_TRUST_PROXY). @defaultValue false */
  readonly trustProxy?: false | number | readonly string[];
  /** Open connections per client address (PAYSYNC_CONNECTIONS_PER_CLIENT). @defaultValue 128 */
  readonly connectionsPerClient?: number;
  /** The line logged once listening, given its URL. @defaultValue `ops server listening` */
  readonly startupLine?: (url: string) => string;
}

/**
 * The ops port (docs/security.md): `/metrics`, `/healthz`, `/readyz`, and the ops API and
 * dashboard when admin tokens turn them on. Private by default (127.0.0.1); the receiver's
 * port serves none of this.
 */
export function createOpsServer(options: OpsServerOptions): OpsServer {
  const { logger } = options;
  const throttle = options.throttle ?? new AuthThrottle(logger);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const trust = options.trustProxy ?? false;
  app.set('trust proxy', typeof trust === 'object' ? [...trust] : trust);
  mountHealthRoutes(app, {
    readiness: options.readiness,
    metrics: {
      registry: metricsRegistry,
      guard: metricsGuard(options.metricsTokens, throttle),
    },
  });
  if (options.routes) app.use(options.routes);
  app.use((_request, response) => sendOpsError(response, 404, 'not_found', 'no such route'));
  const host = options.host ?? DEFAULT_OPS_HOST;
  let server: Server | undefined;
  let bound: number | undefined;
  const url = () => {
    if (bound === undefined) throw new Error('the ops server has not started');
    return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${bound}`;
  };
  return {
    name: 'ops',
    get url() {
      return url();
    },
    get port() {
      if (bound === undefined) throw new Error('the ops server has not started');
      return bound;
    },
    async start() {
      const created = createGuardedServer(app, {
        connectionsPerClient: options.connectionsPerClient ?? 128,
        requestTimeoutMs: 60_000,
      });
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(options.port, host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      server = created;
      bound = (created.address() as AddressInfo).port;
      logger.info({ url: url() }, options.startupLine?.(url()) ?? 'ops server listening');
    },
    async stop() {
      if (!server) return;
      const closing = server;
      server = undefined;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeIdleConnections();
      });
    },
  };
}

/** `/metrics` behind a bearer token, when the ops port is open beyond loopback. */
function metricsGuard(
  tokens: readonly string[] | undefined,
  throttle: AuthThrottle,
): RequestHandler | undefined {
  if (tokens === undefined) return undefined;
  const accepted = tokens.length > 0 ? new AdminTokens(tokens) : undefined;
  return (request: Request, response: Response, next: NextFunction) => {
    void (async () => {
      if (!(await throttle.admits(request, response, 'metrics', sendTooManyFailures))) return;
      const presented = bearerToken(request);
      if (accepted?.accepts(presented)) return next();
      opsRefusals.inc({ surface: 'metrics', reason: presented ? 'wrong' : 'missing' });
      if (presented) await throttle.failed(request, 'metrics');
      response.setHeader('WWW-Authenticate', 'Bearer realm="paysync metrics"');
      sendOpsError(response, 401, 'unauthorized', 'authentication required');
    })().catch(next);
  };
}
