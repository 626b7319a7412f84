import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { errorBodies } from '../../upstream/contract/index.ts';
import type { SimControl } from '../control/sim-control.ts';
import type { SimRuntime } from '../sim-runtime.ts';
import { apiRouter } from './api-router.ts';
import { CONTROL_PREFIX, controlRouter } from './control-router.ts';

/** A JSON body that does not parse is a validation error, with the documented 400 body. */
function badJson(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const type = (error as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    res.status(400).json(errorBodies.validation(['body must be valid JSON']));
  } else if (type === 'entity.too.large') {
    res.status(400).json(errorBodies.validation(['body must not be larger than 1mb']));
  } else {
    next(error);
  }
}

/** The simulator's Express app: `/__sim` control routes, then the service's API. */
export function createSimApp(runtime: SimRuntime, control: SimControl): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(express.json({ limit: '1mb' }));
  app.use(badJson);
  app.use(CONTROL_PREFIX, controlRouter(control));
  app.use(apiRouter(runtime));
  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBodies.notFound(`Cannot ${req.method} ${req.path}`));
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    runtime.options.logger.error({ err: error }, 'sim request failed');
    res.status(500).json(errorBodies.internal(['internal_error']));
  });
  return app;
}
