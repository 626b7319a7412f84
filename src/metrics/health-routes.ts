import type { RequestHandler, Response, Router } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import { reasonOf } from '../error-reason.ts';

/** What `/readyz` reports: 200 when ready, 503 with the reasons otherwise. */
export interface ProcessReadiness {
  readonly ready: boolean;
  readonly reasons: readonly string[];
}

/**
 * What a receiver's port answers to `GET /metrics`: the metrics are on the ops port now
 * (docs/security.md), and the public port says so without serving them.
 */
export const METRICS_MOVED = {
  error: 'not_found',
  message:
    'no metrics here: they are served on the ops port (PAYSYNC_OPS_PORT, PAYSYNC_OPS_HOST); see docs/security.md',
} as const;

/**
 * Once per process, the warning that a scraper still asks a receiver's port for `/metrics`
 * (a deployment upgraded without moving its Prometheus job).
 */
export function metricsMovedWarning(logger: Logger): () => void {
  let warned = false;
  return () => {
    if (warned) return;
    warned = true;
    logger.warn(
      'GET /metrics came to the receiver port, which no longer serves metrics: scrape the ops port (PAYSYNC_OPS_PORT, on PAYSYNC_OPS_HOST) instead; see docs/security.md',
    );
  };
}

/** `/metrics` served from a registry, behind `guard` when the port is open beyond loopback. */
export interface ServedMetrics {
  readonly registry: Registry;
  /** Runs before the registry is read (a bearer token check); unset: open. */
  readonly guard?: RequestHandler | undefined;
}

/** `/metrics` not served here: a 404 saying where they are, and a warning, once, in the log. */
export interface MovedMetrics {
  readonly moved: () => void;
}

export interface HealthRoutesOptions {
  /** What `/readyz` answers (200 when ready, 503 otherwise); unset: `/readyz` is not served. */
  readonly readiness?: (() => Promise<{ readonly ready: boolean }>) | undefined;
  /**
   * `/readyz` says whether the process is ready and nothing more (a public port serving several
   * tenants: which tenants and why one is not ready are on the ops port). @defaultValue false
   */
  readonly readyOnly?: boolean;
  readonly metrics: ServedMetrics | MovedMetrics;
}

const noStore = (response: Response) => response.setHeader('Cache-Control', 'no-store');

/**
 * The one mount of `GET /healthz` (the process runs), `/readyz` (it can take and process work)
 * and `/metrics` (Prometheus text, or where it went) that every port of every process uses: the
 * receiver's, the ops port, the metrics server of `work` and `schedule`, and the tenants' front.
 * A readiness check that throws answers 503 with its reason, like one that says not ready.
 * It mounts on the caller's app: this file loads no Express, so that the read commands that
 * load src/metrics stay light (issue 39).
 */
export function mountHealthRoutes(router: Pick<Router, 'get'>, options: HealthRoutesOptions): void {
  router.get('/healthz', (_request, response) => {
    noStore(response);
    response.json({ ok: true });
  });
  const { readiness } = options;
  if (readiness) {
    router.get('/readyz', async (_request, response) => {
      noStore(response);
      let result: { readonly ready: boolean; readonly reasons?: readonly string[] };
      try {
        result = await readiness();
      } catch (error) {
        result = { ready: false, reasons: [`readiness could not be read: ${reasonOf(error)}`] };
      }
      response
        .status(result.ready ? 200 : 503)
        .json(options.readyOnly ? { ready: result.ready } : result);
    });
  }
  const { metrics } = options;
  if ('moved' in metrics) {
    router.get('/metrics', (_request, response) => {
      metrics.moved();
      response.status(404).json(METRICS_MOVED);
    });
    return;
  }
  const serve: RequestHandler = (_request, response, next) => {
    metrics.registry.metrics().then((text) => {
      noStore(response);
      response.setHeader('Content-Type', metrics.registry.contentType);
      response.send(text);
    }, next);
  };
  if (metrics.guard) router.get('/metrics', metrics.guard, serve);
  else router.get('/metrics', serve);
}
