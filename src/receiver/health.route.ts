import express, { type Router } from 'express';
import type { Logger } from '../logger.ts';
import type { Readiness } from './check-readiness.ts';

/**
 * What the receiver's port answers to `GET /metrics`: the metrics are on the ops port now
 * (docs/security.md), and the public port says so without serving them.
 */
export const METRICS_MOVED = {
  error: 'not_found',
  message:
    'no metrics here: they are served on the ops port (PAYSYNC_OPS_PORT, PAYSYNC_OPS_HOST); see docs/security.md',
} as const;

/**
 * Once per process, the warning that a scraper still asks the receiver's port for `/metrics`
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

/**
 * `GET /healthz` (the process runs) and `GET /readyz` (it can take and process events: 200, or
 * 503 with the reasons). `GET /metrics` answers 404 saying where the metrics went.
 */
export function healthRoute(readiness: () => Promise<Readiness>, logger: Logger): Router {
  const router = express.Router();
  const warn = metricsMovedWarning(logger);
  router.get('/healthz', (_request, response) => {
    response.json({ ok: true });
  });
  router.get('/readyz', async (_request, response) => {
    const result = await readiness();
    response.status(result.ready ? 200 : 503).json(result);
  });
  router.get('/metrics', (_request, response) => {
    warn();
    response.status(404).json(METRICS_MOVED);
  });
  return router;
}
