import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { metricsRegistry } from './metrics-registry.ts';

/** What `/readyz` reports: 200 when ready, 503 with the reasons otherwise. */
export interface ProcessReadiness {
  readonly ready: boolean;
  readonly reasons: readonly string[];
}

export interface MetricsServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  readonly readiness: () => Promise<ProcessReadiness>;
  readonly logger: Logger;
  /** Names the process in the start-up line (`work`, `schedule`). */
  readonly role: string;
}

export interface MetricsServer {
  readonly name: string;
  /** `http://host:port`, once started. */
  readonly url: string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The small HTTP server of a process without a receiver (`paysync work`, `paysync schedule`):
 * `GET /metrics` (Prometheus text), `/healthz` (the process runs) and `/readyz` (its database
 * and Redis answer). Nothing else: no business data is served here.
 */
export function createMetricsServer(options: MetricsServerOptions): MetricsServer {
  let server: Server | undefined;
  let url: string | undefined;
  const host = options.host ?? '0.0.0.0';
  const answer = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    response.end(body);
  };
  return {
    name: 'metrics server',
    get url() {
      return url;
    },
    async start() {
      server = createServer((request, response) => {
        const path = (request.url ?? '/').split('?')[0];
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          answer(response, 405, 'application/json', '{"error":"method not allowed"}');
          return;
        }
        if (path === '/healthz') {
          answer(response, 200, 'application/json', JSON.stringify({ ok: true }));
        } else if (path === '/readyz') {
          options.readiness().then(
            (result) =>
              answer(
                response,
                result.ready ? 200 : 503,
                'application/json',
                JSON.stringify(result),
              ),
            (error: unknown) =>
              answer(
                response,
                503,
                'application/json',
                JSON.stringify({ ready: false, reasons: [String(error)] }),
              ),
          );
        } else if (path === '/metrics') {
          metricsRegistry.metrics().then(
            (text) => answer(response, 200, metricsRegistry.contentType, text),
            () => answer(response, 500, 'text/plain', 'metrics could not be collected\n'),
          );
        } else {
          answer(response, 404, 'application/json', '{"error":"not found"}');
        }
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
        `${options.role}: metrics and health on port ${address.port} (/metrics, /healthz, /readyz; PAYSYNC_METRICS_PORT)`,
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
