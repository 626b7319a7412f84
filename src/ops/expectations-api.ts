import type { Request, Response } from 'express';
import {
  importExpectations,
  listBreaks,
  listExpectations,
  resolveBreak,
  resolveBreaks,
  resolveExpectation,
  showExpectation,
  type BadRow,
  type SourceRow,
} from '../expectations/index.ts';
import {
  breakListQuery,
  breakResolveBody,
  EXPECTATION_BATCH_MAX,
  expectationIdParam,
  expectationImportQuery,
  expectationListQuery,
  expectationResolveBody,
  numericIdParam,
} from './ops-api.schema.ts';
import { expectationContextOf, type ResolvedOpsDependencies } from './ops-dependencies.ts';
import { BadParameterError, parseParameters, sendOpsError } from './ops-errors.ts';
import { pageOf } from './page-cursor.ts';
import { offsetOf, query } from './request-query.ts';

type Handler = (request: Request, response: Response) => Promise<void>;

/** The operationIds of the table's `expectations` routes. */
export type ExpectationOperationId =
  | 'listExpectations'
  | 'importExpectations'
  | 'getExpectation'
  | 'resolveExpectation'
  | 'listExpectationBreaks'
  | 'resolveExpectationBreaks'
  | 'resolveExpectationBreak';

/** Who a resolution is by when the request does not say. */
const API_ACTOR = 'ops-api';

/** Each item of the batch as the row of a file: item N is line N + 1. */
async function* sourceRows(items: readonly unknown[]): AsyncGenerator<SourceRow> {
  for (const [index, item] of items.entries()) {
    const line = index + 1;
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      yield { line, raw: item as Record<string, unknown> };
    } else {
      yield {
        line,
        problem: {
          field: 'item',
          reason: "must be a JSON object with the file format's field names (docs/expectations.md)",
        },
      };
    }
  }
}

function badItem(row: BadRow) {
  return { index: row.line - 1, line: row.line, field: row.field, reason: row.reason };
}

/** The handlers of `/api/v1/expectations…`: each parses, calls the expectations component, answers. */
export function expectationHandlers(
  deps: ResolvedOpsDependencies,
): Record<ExpectationOperationId, Handler> {
  const ctx = expectationContextOf(deps);
  // A refusal of the component is worded by the router's one wrapper (refusal-answers.ts).
  return {
    listExpectations: async (request, response) => {
      const q = query(expectationListQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await listExpectations(deps.db, deps.environment, {
        ...(q.state ? { state: q.state } : {}),
        limit: offset + q.limit + 1,
      });
      response.json(pageOf(rows, offset, q.limit));
    },
    importExpectations: async (request, response) => {
      const q = query(expectationImportQuery, request);
      const items: unknown = request.body;
      if (!Array.isArray(items)) {
        throw new BadParameterError(
          'body',
          "must be a JSON array of expectations with the file format's field names",
        );
      }
      if (items.length > EXPECTATION_BATCH_MAX) {
        return sendOpsError(
          response,
          413,
          'too_large',
          `body: ${items.length} expectations; at most ${EXPECTATION_BATCH_MAX} per request: split the batch`,
        );
      }
      const partial = q.partial === 'true';
      const result = await importExpectations(deps.db, ctx, sourceRows(items), {
        source: 'api',
        actor: API_ACTOR,
        timeZone: deps.timeZone,
        partial,
      });
      const bad = result.bad.map(badItem);
      if (!result.loaded) {
        const first = bad[0]!;
        response.status(400).json({
          error: {
            code: 'bad_batch',
            message: `${result.badCount} bad item${result.badCount === 1 ? '' : 's'} of ${result.rows}, nothing loaded (fix them, or load the good ones with ?partial=true); line ${first.line} (index ${first.index}): ${first.field}: ${first.reason}`,
            bad,
          },
        });
        return;
      }
      response.json({
        data: {
          created: result.created,
          updated: result.updated,
          unchanged: result.unchanged,
          matched: result.matched,
          partiallyMatched: result.partiallyMatched,
          rows: result.rows,
          loaded: result.loaded,
          badCount: result.badCount,
          bad,
        },
      });
    },
    getExpectation: async (request, response) => {
      const { id } = parseParameters(expectationIdParam, request.params, 'path');
      response.json({ data: await showExpectation(deps.db, deps.environment, id) });
    },
    resolveExpectation: async (request, response) => {
      const { id } = parseParameters(expectationIdParam, request.params, 'path');
      const body = parseParameters(expectationResolveBody, request.body ?? {}, 'body');
      const result = await deps.db.transaction().execute((trx) =>
        resolveExpectation(trx, ctx, id, {
          reason: body.reason,
          by: body.by ?? API_ACTOR,
          source: 'api',
        }),
      );
      response.json({ data: result });
    },
    listExpectationBreaks: async (request, response) => {
      const q = query(breakListQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await listBreaks(deps.db, deps.environment, {
        ...(q.state ? { state: q.state } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        limit: offset + q.limit + 1,
      });
      response.json(pageOf(rows, offset, q.limit));
    },
    resolveExpectationBreaks: async (request, response) => {
      const body = parseParameters(breakResolveBody, request.body ?? {}, 'body');
      const result = await deps.db.transaction().execute((trx) =>
        resolveBreaks(
          trx,
          ctx,
          {
            kind: body.kind,
            ...(body.maxDifference !== undefined ? { maxDifference: body.maxDifference } : {}),
            ...(body.currency !== undefined ? { currency: body.currency.toUpperCase() } : {}),
            ...(body.from !== undefined ? { from: new Date(body.from).toISOString() } : {}),
            ...(body.to !== undefined ? { to: new Date(body.to).toISOString() } : {}),
          },
          { reason: body.reason, by: body.by ?? API_ACTOR, dryRun: body.dryRun ?? false },
        ),
      );
      response.json({ data: result });
    },
    resolveExpectationBreak: async (request, response) => {
      const { id } = parseParameters(numericIdParam, request.params, 'path');
      const body = parseParameters(expectationResolveBody, request.body ?? {}, 'body');
      const result = await deps.db
        .transaction()
        .execute((trx) =>
          resolveBreak(trx, ctx, id, { reason: body.reason, by: body.by ?? API_ACTOR }),
        );
      response.json({ data: result });
    },
  };
}
