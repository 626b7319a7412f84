import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createGuardedServer } from '../guarded-server.ts';
import { mountHealthRoutes, type ProcessReadiness } from './health-routes.ts';
import { metricsRegistry } from './metrics-registry.ts';

export interface MetricsServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  readonly readiness: () => Promise<ProcessReadiness>;
  readonly logger: Logger;
  /** Names the process in the start-up line (`work`, `schedule`). */
  readonly role: string;
  /**
   * When set, `/metrics` wants one of these as `Authorization: Bearer` (the admin and scrape
   * tokens): the port is bound beyond loopback (`PAYSYNC_OPS_HOST`). None at all: `/metrics`
   * answers 401 to everyone. @defaultValue unset: open (the port is on loopback)
   */
  readonly bearerTokens?: readonly string[] | undefined;
  /**
   * Open connections one client address may hold (`PAYSYNC_CONNECTIONS_PER_CLIENT`, as on the
   * receiver's and the ops port); 0: no limit. @defaultValue 128
   */
  readonly connectionsPerClient?: number;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether the request carries one of `tokens` as its bearer token, compared in constant time. */
function carriesToken(request: IncomingMessage, tokens: readonly Buffer[]): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) return false;
  const given = digest(match[1]!);
  let accepted = false;
  for (const expected of tokens) accepted = timingSafeEqual(given, expected) || accepted;
  return accepted;
}

/** `/metrics` only with one of `tokens` as the bearer token; 401 otherwise. */
function bearerGuard(tokens: readonly Buffer[]): RequestHandler {
  return (request, response, next) => {
    if (carriesToken(request, tokens)) return next();
    response.setHeader('WWW-Authenticate', 'Bearer realm="paysync metrics"');
    response.setHeader('Cache-Control', 'no-store');
    response.status(401).json({ error: 'authentication required' });
  };
}

export interface MetricsServer {
  readonly name: string;
  /** `http://host:port`, once started. */
  readonly url: string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The server's routes: health and metrics, then 405 or 404 for anything else. */
async function metricsApp(
  readiness: MetricsServerOptions['readiness'],
  guard: readonly Buffer[] | undefined,
): Promise<RequestListener> {
  // Loaded when the server starts: read commands load src/metrics without Express (issue 39).
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  mountHealthRoutes(app, {
    readiness,
    metrics: { registry: metricsRegistry, guard: guard ? bearerGuard(guard) : undefined },
  });
  app.use((request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.status(405).json({ error: 'method not allowed' });
      return;
    }
    response.status(404).json({ error: 'not found' });
  });
  const onError: ErrorRequestHandler = (_error, _request, response, next) => {
    if (response.headersSent) return next(_error);
    response.status(500).type('text/plain').send('metrics could not be collected\n');
  };
  app.use(onError);
  return app;
}

/**
 * The small HTTP server of a process without a receiver (`paysync work`, `paysync schedule`):
 * `GET /metrics` (Prometheus text), `/healthz` (the process runs) and `/readyz` (its database
 * and Redis answer). Nothing else: no business data is served here. It listens like every
 * other port (createGuardedServer): headers within 10 s, and a cap on one address's open
 * connections, so that a slow client cannot hold the port.
 */
export function createMetricsServer(options: MetricsServerOptions): MetricsServer {
  let server: Server | undefined;
  let url: string | undefined;
  const host = options.host ?? '0.0.0.0';
  const guard = options.bearerTokens?.map(digest);
  return {
    name: 'metrics server',
    get url() {
      return url;
    },
    async start() {
      server = createGuardedServer(await metricsApp(options.readiness, guard), {
        connectionsPerClient: options.connectionsPerClient ?? 128,
        // A scrape has no body: its whole request is its headers.
        requestTimeoutMs: 30_000,
      });
      const listening = server;
      try {
        await new Promise<void>((resolve, reject) => {
          listening.once('error', reject);
          listening.listen(options.port, host, () => {
            listening.off('error', reject);
            resolve();
          });
        });
      } catch (error) {
        server = undefined;
        throw error;
      }
      const address = listening.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host;
      url = `http://${shownHost}:${address.port}`;
      options.logger.info(
        { port: address.port, url: `${url}/metrics` },
        `${options.role}: metrics and health on port ${address.port} (/metrics, /healthz, /readyz; PAYSYNC_METRICS_PORT)${guard ? `, open on ${host}: /metrics wants the admin token or PAYSYNC_METRICS_TOKEN` : ''}`,
      );
    },
    async stop() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      closing.closeAllConnections();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}
