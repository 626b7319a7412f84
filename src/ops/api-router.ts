import { pipeline } from 'node:stream/promises';
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { replayInboxEvents } from '../replay/index.ts';
import { discrepancyExists, resolveDiscrepancy } from '../ledger/index.ts';
import type { ResolvedOpsDependencies } from './ops-dependencies.ts';
import {
  dateParam,
  exportFileParam,
  exportQuery,
  historyQuery,
  idParam,
  numericIdParam,
  pageQuery,
  replayBody,
  resourceQuery,
} from './ops-api.schema.ts';
import { parseParameters, sendOpsError } from './ops-errors.ts';
import { opsErrorAnswer } from './refusal-answers.ts';
import { reasonOf } from '../error-reason.ts';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailableAnswer,
} from './database-unavailable-answer.ts';
import {
  readBalances,
  readItem,
  readOpenDiscrepancies,
  readReport,
  readResources,
  readSnapshotHistory,
  readVerdicts,
  publicRecord,
  type OpsReadContext,
} from './ops-queries.ts';
import { pageOf } from './page-cursor.ts';
import { offsetOf, query } from './request-query.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES, type OptionalPart } from './ops-features.ts';
import { expressPathOf, OPS_ROUTES, type OpsOperationId } from './ops-routes.ts';
import { serveReceiptHtml } from './serve-receipt.ts';
import { endpointHandlers } from './endpoints-api.ts';
import { expectationHandlers } from './expectations-api.ts';
import { exportContentType } from './export-content-type.ts';

function notAvailable(response: Response, feature: OptionalPart): void {
  sendOpsError(response, 501, 'not_available', NOT_AVAILABLE_MESSAGES[feature]);
}

type Handler = (request: Request, response: Response) => Promise<void>;

/**
 * One handler per route of the table ({@link OPS_ROUTES}): the compiler refuses a route
 * without a handler and a handler without a route.
 */
function apiHandlers(
  deps: ResolvedOpsDependencies,
  ctx: OpsReadContext,
): Record<OpsOperationId, Handler> {
  const features = deps.features;
  const listOf =
    (kind: 'payment_intent' | 'transfer' | 'refunds'): Handler =>
    async (request, response) => {
      const q = query(resourceQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await readResources(ctx, kind, q, offset + q.limit + 1);
      const page = pageOf(rows, offset, q.limit);
      response.json({ data: page.data.map(publicRecord), nextCursor: page.nextCursor });
    };
  const alertAction =
    (action: 'ack' | 'resolve'): Handler =>
    async (request, response) => {
      const { id } = parseParameters(numericIdParam, request.params, 'path');
      const apply = action === 'ack' ? features.ackAlert : features.resolveAlert;
      const done = await apply(deps.db, id, 'ops-api');
      if (done === NOT_AVAILABLE) return notAvailable(response, 'alerts');
      if (!done) return sendOpsError(response, 404, 'not_found', `no open alert with id ${id}`);
      response.json({ data: { id, [action === 'ack' ? 'acked' : 'resolved']: true } });
    };
  return {
    ...endpointHandlers(deps),
    ...expectationHandlers(deps),
    getItem: async (request, response) => {
      const { id } = parseParameters(idParam, request.params, 'path');
      const item = await readItem(ctx, id);
      if (!item) return sendOpsError(response, 404, 'not_found', `no item with id ${id}`);
      response.json(item);
    },
    listPaymentIntents: listOf('payment_intent'),
    listTransfers: listOf('transfer'),
    listRefunds: listOf('refunds'),
    listDiscrepancies: async (request, response) => {
      const q = query(pageQuery, request);
      const offset = offsetOf(q.cursor);
      response.json(
        pageOf(await readOpenDiscrepancies(ctx, offset + q.limit + 1), offset, q.limit),
      );
    },
    resolveDiscrepancy: async (request, response) => {
      const { id } = parseParameters(numericIdParam, request.params, 'path');
      if (!(await discrepancyExists(deps.db, id)))
        return sendOpsError(response, 404, 'not_found', `no discrepancy with id ${id}`);
      const resolved = await resolveDiscrepancy(deps.db, id, deps.now().toISOString());
      response.json({ data: { id, resolved } });
    },
    listAlerts: async (request, response) => {
      const q = query(pageQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await features.listAlerts(deps.db, { limit: q.limit + 1, offset });
      if (rows === NOT_AVAILABLE) return notAvailable(response, 'alerts');
      response.json(pageOf(rows, 0, q.limit));
    },
    ackAlert: alertAction('ack'),
    resolveAlert: alertAction('resolve'),
    getBalances: async (_request, response) => {
      response.json(await readBalances(ctx));
    },
    listBalanceHistory: async (request, response) => {
      const q = query(historyQuery, request);
      const offset = offsetOf(q.cursor);
      response.json(
        pageOf(await readSnapshotHistory(ctx, q, offset + q.limit + 1), offset, q.limit),
      );
    },
    listVerdicts: async (request, response) => {
      const q = query(pageQuery, request);
      const offset = offsetOf(q.cursor);
      response.json(pageOf(await readVerdicts(ctx, offset + q.limit + 1), offset, q.limit));
    },
    getReport: async (request, response) => {
      const { date } = parseParameters(dateParam, request.params, 'path');
      response.json(await readReport(ctx, date));
    },
    listRuns: async (request, response) => {
      const q = query(pageQuery, request);
      const runs = await features.lastRuns(deps.db);
      if (runs === NOT_AVAILABLE) return notAvailable(response, 'runs');
      const offset = offsetOf(q.cursor);
      response.json(pageOf(runs, offset, q.limit));
    },
    listExports: async (request, response) => {
      const q = query(exportQuery, request);
      const offset = offsetOf(q.cursor);
      // The list is small (a file a day per format): page it here, like the runs.
      const rows = await features.listExports(deps.db, {
        limit: offset + q.limit + 1,
        offset: 0,
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.format ? { format: q.format } : {}),
      });
      if (rows === NOT_AVAILABLE) return notAvailable(response, 'exports');
      response.json(pageOf(rows, offset, q.limit));
    },
    downloadExport: async (request, response) => {
      const { id } = parseParameters(exportFileParam, request.params, 'path');
      const file = await features.openExport(deps.db, id);
      if (file === NOT_AVAILABLE) return notAvailable(response, 'exports');
      if (!file) return sendOpsError(response, 404, 'not_found', `no export file ${id}`);
      response.setHeader('Content-Type', exportContentType(file.view.format));
      response.attachment(file.view.id);
      response.setHeader('X-Content-SHA256', file.view.sha256);
      await pipeline(file.stream, response);
    },
    getReceipt: async (request, response) => {
      const { id } = parseParameters(idParam, request.params, 'path');
      const html = await features.receiptHtml(deps.db, id);
      if (html === NOT_AVAILABLE) return notAvailable(response, 'receipts');
      if (html === undefined)
        return sendOpsError(response, 404, 'not_found', `no receipt for ${id}`);
      serveReceiptHtml(response, html);
    },
    replay: async (request, response) => {
      const body = parseParameters(replayBody, request.body ?? {}, 'body');
      if (!deps.queues) {
        return sendOpsError(response, 503, 'queues_unavailable', 'this process has no queues');
      }
      const selection =
        body.inboxId !== undefined ? { inboxId: body.inboxId } : { since: new Date(body.since!) };
      const result = await replayInboxEvents({ db: deps.db, queues: deps.queues }, selection);
      response.json({ data: { ...result } });
    },
  };
}

/** The `/api/v1` routes of the table (authentication is the caller's, see createOpsRouter). */
export function createApiRouter(deps: ResolvedOpsDependencies, ctx: OpsReadContext): Router {
  const router = Router();
  const tenant = deps.tenantDashboard?.tenant;
  /** A database down or refusing writes: 503 with Retry-After (as a paused tenant), logged as a warning. */
  const sendDatabaseUnavailable = (error: unknown, response: Response): boolean => {
    const answer = databaseUnavailableAnswer(error, tenant);
    if (!answer) return false;
    deps.logger.warn(
      { reason: reasonOf(error) },
      'ops API request answered 503: the database is unavailable',
    );
    if (!response.headersSent) {
      response.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      sendOpsError(response, 503, answer.code, answer.message);
    }
    return true;
  };
  // The one wrapper of every route: a refusal (of the request or the domain) is worded by
  // opsErrorAnswer; anything else is logged and answered 500.
  const route = (handler: Handler) => async (request: Request, response: Response) => {
    try {
      await handler(request, response);
    } catch (error) {
      const refused = opsErrorAnswer(error);
      if (refused) {
        sendOpsError(response, refused.status, refused.kind, refused.message);
        return;
      }
      if (sendDatabaseUnavailable(error, response)) return;
      deps.logger.error({ err: error, path: request.path }, 'ops API request failed');
      if (!response.headersSent) {
        sendOpsError(response, 500, 'internal_error', 'unexpected error; it was logged');
      }
    }
  };
  // A batch route parses its own bigger body first; the 16 kB parser then leaves it alone.
  for (const definition of OPS_ROUTES) {
    if (!definition.bodyLimit) continue;
    const limit = definition.bodyLimit;
    const parse = express.json({ limit });
    router[definition.method](expressPathOf(definition), (request, response, next) =>
      parse(request, response, (error?: unknown) => {
        if (error === undefined || error === null) return next();
        const status = (error as { status?: unknown }).status;
        if (status === 413) {
          return sendOpsError(
            response,
            413,
            'too_large',
            `body: at most ${limit}: split the batch`,
          );
        }
        if (typeof status === 'number' && status >= 400 && status < 500) {
          return sendOpsError(response, status, 'bad_parameter', 'body: must be valid JSON');
        }
        next(error);
      }),
    );
  }
  router.use(express.json({ limit: '16kb' }));
  const handlers = apiHandlers(deps, ctx);
  for (const definition of OPS_ROUTES) {
    const handler = handlers[definition.operationId as OpsOperationId];
    router[definition.method](expressPathOf(definition), route(handler));
  }
  router.use((_request, response) => sendOpsError(response, 404, 'not_found', 'no such route'));
  const onError: ErrorRequestHandler = (error, _request, response, next) => {
    if (response.headersSent) return next(error);
    // express.json refusals (malformed JSON, too large) carry a `type` and a status.
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendOpsError(
        response,
        status,
        'bad_parameter',
        'body: must be a JSON object of at most 16 kB',
      );
    }
    if (sendDatabaseUnavailable(error, response)) return;
    deps.logger.error({ err: error }, 'ops API request failed');
    sendOpsError(response, 500, 'internal_error', 'unexpected error; it was logged');
  };
  router.use(onError);
  return router;
}
