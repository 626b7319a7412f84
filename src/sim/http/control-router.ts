import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { SimControl } from '../control/sim-control.ts';
import {
  advanceInput,
  attemptInput,
  faultsInput,
  groundTruthQuery,
  otpInput,
  settleInput,
} from '../control/control-inputs.ts';
import { SimError } from '../engine/sim-error.ts';
import type { ItemKind, Mode } from '../engine/sim-resources.ts';

/** Where the control surface lives; real clients never call it. */
export const CONTROL_PREFIX = '/__sim';

const STATUS_OF_KIND: Record<SimError['kind'], number> = {
  validation: 400,
  wrong_provider: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  throttled: 429,
  internal: 500,
};

type Handler = (req: Request) => unknown;

function json(handler: Handler) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const result = await handler(req);
      res.status(200).json(result ?? { ok: true });
    } catch (error) {
      next(error);
    }
  };
}

const modeQuery = z.strictObject({
  mode: z.enum(['live', 'sandbox']).optional(),
  date: z.iso.datetime().optional(),
});
const attemptsQuery = z.strictObject({
  eventId: z.string().optional(),
  webhookId: z.string().optional(),
});
const flushInput = z.strictObject({
  timeoutMs: z.number().int().min(0).max(120_000).default(10_000),
});

/**
 * The control surface over HTTP. Bodies and answers are JSON; errors are
 * `{ error: { kind, message, details } }` with 400, 404 or 409.
 */
export function controlRouter(control: SimControl): Router {
  const router = express.Router();
  router.get(
    '/health',
    json(() => ({ ok: true, now: control.now() })),
  );
  router.get(
    '/clock',
    json(() => ({ now: control.now() })),
  );
  router.post(
    '/clock/advance',
    json((req) => control.advance(advanceInput.parse(req.body).ms)),
  );
  router.get(
    '/items/:id',
    json((req) => control.item(String(req.params.id)) ?? missing(String(req.params.id))),
  );
  router.post(
    '/items/:id/settle',
    json((req) => control.settle(String(req.params.id), settleInput.parse(req.body ?? {}).status)),
  );
  router.post(
    '/items/:id/touch',
    json((req) => control.touch(String(req.params.id))),
  );
  router.post(
    '/transfers',
    json((req) => control.createTransfer(req.body)),
  );
  router.post(
    '/payment-intents',
    json((req) => control.createPaymentIntent(req.body)),
  );
  router.post(
    '/payment-intents/:id/attempts',
    json((req) =>
      control.attemptPayment(String(req.params.id), attemptInput.parse(req.body ?? {})),
    ),
  );
  router.post(
    '/payment-intents/:id/otp',
    json((req) => control.submitOtp(String(req.params.id), otpInput.parse(req.body).otp)),
  );
  router.post(
    '/balances/fund',
    json((req) => ({ balances: control.fund(req.body) })),
  );
  router.get(
    '/balances',
    json((req) => {
      const query = modeQuery.parse(req.query);
      return { balances: control.balances(query.mode as Mode | undefined, query.date) };
    }),
  );
  router.get(
    '/movements',
    json(() => ({ movements: control.movements() })),
  );
  router.get(
    '/faults',
    json(() => control.faults()),
  );
  router.put(
    '/faults',
    json((req) => control.setFaults(faultsInput.parse(req.body))),
  );
  router.patch(
    '/faults',
    json((req) => control.setFaults(faultsInput.parse(req.body))),
  );
  router.post(
    '/errors',
    json((req) => control.injectErrors(req.body)),
  );
  router.post(
    '/seed',
    json((req) => control.seed(req.body)),
  );
  // Streamed in pieces, so a long run's ground truth never sits whole in memory; the client
  // reads the same JSON as `groundTruth()`.
  router.get('/ground-truth', async (req: Request, res: Response, next: NextFunction) => {
    let pieces: Generator<string, void, undefined>;
    try {
      const kind = groundTruthQuery.parse(req.query).kind as ItemKind | undefined;
      pieces = control.groundTruthJson({ kind });
    } catch (error) {
      next(error);
      return;
    }
    try {
      res.status(200).type('application/json');
      for (const piece of pieces) {
        if (res.destroyed) break;
        if (!res.write(piece)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
      }
      res.end();
    } catch (error) {
      if (res.headersSent) res.destroy(error as Error);
      else next(error);
    } finally {
      pieces.return();
    }
  });
  router.get(
    '/webhook-attempts',
    json((req) => ({ attempts: control.webhookAttempts(attemptsQuery.parse(req.query)) })),
  );
  router.post(
    '/webhooks/flush',
    json(async (req) => {
      const { timeoutMs } = flushInput.parse(req.body ?? {});
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)),
      );
      const idle = await Promise.race([control.webhooksIdle().then(() => true), timedOut]);
      clearTimeout(timer);
      return { idle };
    }),
  );
  router.post(
    '/move-out',
    json(() => control.moveOut()),
  );
  router.get(
    '/memory',
    json(() => control.memory()),
  );
  router.post(
    '/reset',
    json(() => control.reset()),
  );
  router.use((req: Request, res: Response) => {
    res.status(404).json({
      error: {
        kind: 'not_found',
        message: `No control route ${req.method} ${req.path}`,
        details: [],
      },
    });
  });
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof z.ZodError) {
      const details = error.issues.map(
        (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
      res
        .status(400)
        .json({ error: { kind: 'validation', message: 'Invalid control request', details } });
      return;
    }
    const simError = error instanceof SimError ? error : new SimError('internal', String(error));
    res.status(STATUS_OF_KIND[simError.kind]).json({
      error: { kind: simError.kind, message: simError.message, details: simError.details },
    });
  });
  return router;
}

function missing(id: string): never {
  throw SimError.notFound('Item', id);
}
