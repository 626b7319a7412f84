import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { z } from 'zod';
import {
  NO_BODY,
  operationIds,
  operations,
  type ErrorKind,
  type OperationDefinition,
  type OperationId,
} from '../../upstream/contract/index.ts';
import { SimError } from '../engine/sim-error.ts';
import { breakContract } from '../faults/break-contract.ts';
import type { SimRuntime } from '../sim-runtime.ts';
import { checkCredentials } from './check-credentials.ts';
import { errorKindOfStatus, errorResponse } from './error-response.ts';
import { sendJson } from './send-json.ts';
import type { OperationHandler, OperationResult } from './handlers/handler-types.ts';
import { OPERATION_HANDLERS } from './handlers/index.ts';

/** `/webhooks/{id}` → `/webhooks/:id`. */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

function issuesOf(error: z.ZodError, where: string): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? where : path}: ${issue.message}`;
  });
}

function parsePart(
  schema: z.ZodType | undefined,
  value: unknown,
  where: string,
  messages: string[],
): unknown {
  if (schema === undefined) return where === 'body' ? undefined : {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  messages.push(...issuesOf(parsed.error, where));
  return undefined;
}

/** True when the document lets this operation answer `kind` (or lists no errors at all). */
function mayAnswer(operation: OperationDefinition, kind: ErrorKind): boolean {
  return operation.errors.length === 0 || operation.errors.includes(kind);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Throttle and injected faults, in the order a gateway would apply them. */
async function requestFaults(runtime: SimRuntime, operation: OperationDefinition): Promise<void> {
  const { faults, engine } = runtime;
  const inScope =
    faults.operations.length === 0 || faults.operations.includes(operation.operationId);
  if (inScope && faults.latencyMs + faults.latencyJitterMs > 0) {
    await sleep(faults.latencyMs + Math.floor(engine.random.next() * (faults.latencyJitterMs + 1)));
  }
  if (operation.errors.includes('throttled') && runtime.throttle && !runtime.throttle.take()) {
    throw new SimError('throttled', 'ThrottlerException: Too Many Requests');
  }
  const injected = runtime.injectedErrors.find(
    (error) =>
      error.remaining > 0 &&
      (error.operationId === undefined || error.operationId === operation.operationId),
  );
  if (injected) {
    injected.remaining -= 1;
    runtime.injectedErrors = runtime.injectedErrors.filter((error) => error.remaining > 0);
    const kind = errorKindOfStatus(injected.status);
    throw new SimError(
      kind,
      kind === 'throttled' ? 'ThrottlerException: Too Many Requests' : 'Injected by the simulator',
      injected.codes ?? [],
    );
  }
  if (!inScope) return;
  if (mayAnswer(operation, 'throttled') && engine.random.chance(faults.throttleRate)) {
    throw new SimError('throttled', 'ThrottlerException: Too Many Requests');
  }
  if (mayAnswer(operation, 'internal') && engine.random.chance(faults.errorRate)) {
    throw new SimError('internal', 'Internal server error', ['internal_error']);
  }
}

function send(
  res: Response,
  runtime: SimRuntime,
  operation: OperationDefinition,
  result: OperationResult,
): void {
  const status = result.status ?? operation.successStatus;
  if ('noBody' in result || operation.response === NO_BODY) {
    res.status(status).end();
    return;
  }
  let body = result.body;
  const { faults, engine } = runtime;
  const inScope =
    faults.operations.length === 0 || faults.operations.includes(operation.operationId);
  if (inScope && engine.random.chance(faults.contractBreakRate)) {
    body = structuredClone(body);
    const field = breakContract(body, faults.contractBreak);
    if (field !== undefined) res.setHeader('x-sim-contract-break', field);
  }
  sendJson(res, status, body);
}

function route(
  runtime: SimRuntime,
  operation: OperationDefinition,
  handler: OperationHandler<OperationId>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const requestId = `req_${randomUUID()}`;
    res.setHeader('x-request-id', requestId);
    try {
      runtime.engine.runDue();
      await requestFaults(runtime, operation);
      const mode = checkCredentials(operation, req.headers, runtime.options);
      const messages: string[] = [];
      const params = parsePart(operation.pathParams, req.params, 'path', messages);
      // paysync's stricter reading where the client checks only what the document shows.
      const checks = operation.simulatorChecks;
      const query = parsePart(checks?.query ?? operation.query, req.query, 'query', messages);
      const body = parsePart(checks?.body ?? operation.body, req.body, 'body', messages);
      if (messages.length > 0) throw SimError.validation(messages);
      const result = handler({ runtime, mode, params, query, body, requestId } as never);
      send(res, runtime, operation, result);
    } catch (error) {
      if (!(error instanceof SimError))
        runtime.options.logger.error(
          { err: error, operationId: operation.operationId },
          'sim handler failed',
        );
      const simError =
        error instanceof SimError ? error : new SimError('internal', 'Internal server error');
      const { status, body } = errorResponse(simError, requestId);
      if (status === 429)
        res.setHeader('retry-after', String(runtime.throttle?.secondsUntilNextToken() ?? 1));
      sendJson(res, status, body);
    }
  };
}

/** The 30 operations of the payment service, routed from the contract's operations table. */
export function apiRouter(runtime: SimRuntime): Router {
  const router = express.Router();
  for (const id of operationIds) {
    const operation: OperationDefinition = operations[id];
    const method = operation.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const handler = OPERATION_HANDLERS[id] as OperationHandler<OperationId>;
    router[method](expressPath(operation.path), route(runtime, operation, handler));
  }
  return router;
}
