import express, { type Router } from 'express';
import { metricsRegistry } from '../metrics/index.ts';
import type { Readiness } from './check-readiness.ts';

/**
 * `GET /healthz` (the process runs), `GET /readyz` (it can take and process events: 200, or
 * 503 with the reasons) and `GET /metrics` (Prometheus text).
 */
export function healthRoute(readiness: () => Promise<Readiness>): Router {
  const router = express.Router();
  router.get('/healthz', (_request, response) => {
    response.json({ ok: true });
  });
  router.get('/readyz', async (_request, response) => {
    const result = await readiness();
    response.status(result.ready ? 200 : 503).json(result);
  });
  router.get('/metrics', async (_request, response) => {
    response.setHeader('Content-Type', metricsRegistry.contentType);
    response.send(await metricsRegistry.metrics());
  });
  return router;
}
