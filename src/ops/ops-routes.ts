import type { z } from 'zod';
import {
  alertActionBody,
  alertPage,
  balancesBody,
  dateParam,
  deliveryAttemptPage,
  discrepancyPage,
  endpointAddBody,
  endpointBody,
  endpointCreated,
  endpointDeletedBody,
  endpointDetailBody,
  endpointEnabledBody,
  endpointIdParam,
  endpointPage,
  endpointPingBody,
  endpointRedeliverBody,
  endpointRedeliveryResult,
  endpointRotatedBody,
  breakListQuery,
  breakPage,
  breakResolveBody,
  breakResolvedBody,
  oneBreakResolvedBody,
  expectationBatchBody,
  expectationDetailBody,
  expectationIdParam,
  expectationImportBody,
  expectationImportQuery,
  expectationListQuery,
  expectationPage,
  expectationResolveBody,
  expectationResolvedBody,
  exportFileParam,
  exportPage,
  exportQuery,
  historyQuery,
  idParam,
  itemView,
  numericIdParam,
  pageQuery,
  pendingQuery,
  recordPage,
  replayBody,
  replayResult,
  reportBody,
  resolvedBody,
  resourceQuery,
  runPage,
  snapshotPage,
  undeliveredPage,
  verdictPage,
} from './ops-api.schema.ts';

/** One route of the ops API as the OpenAPI document describes it. */
export interface OpsRouteDefinition {
  readonly method: 'get' | 'post' | 'delete';
  /** OpenAPI template (`{id}`). */
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** JSON answer; `html` for a receipt, `download` for an export file. */
  readonly response: z.ZodType | 'html' | 'download';
  /** The status of success. @defaultValue 200 */
  readonly successStatus?: 200 | 201;
  /** Whether 404 (unknown id) is a documented answer. */
  readonly notFound?: boolean;
  /**
   * Served by a part the process may have been started without (an export folder, a receipts
   * directory, the alert runtime): then it answers 501 `not_available`.
   */
  readonly optionalPart?: boolean;
  /** Whether 409 (the target's state forbids it) is a documented answer. */
  readonly conflict?: boolean;
  /** A former path kept answering for old scripts; the document marks it deprecated. */
  readonly deprecated?: boolean;
  /**
   * A route that takes a bigger JSON body than the 16 kB of the others (a batch): its own
   * limit, and 413 is a documented answer.
   */
  readonly bodyLimit?: string;
}

/** Where the ops API is mounted; every path of the table starts with it. */
export const OPS_API_BASE = '/api/v1';

/**
 * Every route of `/api/v1`, in the order of the document: the one declaration of the ops API.
 * It feeds the Express router (`api-router.ts`, one handler per operationId) and the OpenAPI
 * document (`scripts/generate-ops-openapi.ts`).
 */
const routes = [
  {
    method: 'get',
    path: '/api/v1/items/{id}',
    operationId: 'getItem',
    tag: 'items',
    summary: 'One item (intent, transfer, refund) with history, journals and inbox events',
    params: idParam,
    response: itemView,
    notFound: true,
  },
  {
    method: 'get',
    path: '/api/v1/payment-intents',
    operationId: 'listPaymentIntents',
    tag: 'items',
    summary: 'Payment intents, most recently updated first',
    query: resourceQuery,
    response: recordPage,
  },
  {
    method: 'get',
    path: '/api/v1/transfers',
    operationId: 'listTransfers',
    tag: 'items',
    summary: 'Transfers, most recently updated first',
    query: resourceQuery,
    response: recordPage,
  },
  {
    method: 'get',
    path: '/api/v1/refunds',
    operationId: 'listRefunds',
    tag: 'items',
    summary: 'Refunds of transfers and of payments, most recently updated first',
    query: resourceQuery,
    response: recordPage,
  },
  {
    method: 'get',
    path: '/api/v1/discrepancies',
    operationId: 'listDiscrepancies',
    tag: 'discrepancies',
    summary: 'Open discrepancies (breaks), newest first, with their explanation',
    query: pageQuery,
    response: discrepancyPage,
  },
  {
    method: 'post',
    path: '/api/v1/discrepancies/{id}/resolve',
    operationId: 'resolveDiscrepancy',
    tag: 'discrepancies',
    summary: 'Mark a discrepancy resolved (idempotent: resolved stays resolved)',
    params: numericIdParam,
    response: resolvedBody,
    notFound: true,
  },
  {
    method: 'get',
    path: '/api/v1/alerts',
    operationId: 'listAlerts',
    tag: 'alerts',
    summary: 'Alerts, newest first',
    query: pageQuery,
    response: alertPage,
  },
  {
    method: 'post',
    path: '/api/v1/alerts/{id}/ack',
    operationId: 'ackAlert',
    tag: 'alerts',
    summary: 'Acknowledge an alert (no more reminders); 404 when it is unknown or resolved',
    params: numericIdParam,
    response: alertActionBody,
    notFound: true,
    optionalPart: true,
  },
  {
    method: 'post',
    path: '/api/v1/alerts/{id}/resolve',
    operationId: 'resolveAlert',
    tag: 'alerts',
    summary: 'Resolve an alert by hand; 404 when it is unknown or already resolved',
    params: numericIdParam,
    response: alertActionBody,
    notFound: true,
    optionalPart: true,
  },
  {
    method: 'get',
    path: '/api/v1/balances',
    operationId: 'getBalances',
    tag: 'balances',
    summary: 'Latest service balance of each account against the ledger, and ledger totals',
    response: balancesBody,
  },
  {
    method: 'get',
    path: '/api/v1/balances/history',
    operationId: 'listBalanceHistory',
    tag: 'balances',
    summary: 'Balance snapshots over time, oldest first',
    query: historyQuery,
    response: snapshotPage,
  },
  {
    method: 'get',
    path: '/api/v1/verdicts',
    operationId: 'listVerdicts',
    tag: 'reports',
    summary: 'Stored daily verdicts, newest day first',
    query: pageQuery,
    response: verdictPage,
  },
  {
    method: 'get',
    path: '/api/v1/reports/{date}',
    operationId: 'getReport',
    tag: 'reports',
    summary:
      "A day's report as `paysync report` computes it now, and whether it is stored or when it will be",
    params: dateParam,
    response: reportBody,
  },
  {
    method: 'get',
    path: '/api/v1/runs',
    operationId: 'listRuns',
    tag: 'runs',
    summary: 'The last run of each scheduled task, with its outcome',
    query: pageQuery,
    response: runPage,
  },
  {
    method: 'get',
    path: '/api/v1/exports',
    operationId: 'listExports',
    tag: 'exports',
    summary: "Closed periods' frozen files and the scheduled daily files, newest period first",
    query: exportQuery,
    response: exportPage,
    optionalPart: true,
  },
  {
    method: 'get',
    path: '/api/v1/exports/{id}',
    operationId: 'downloadExport',
    tag: 'exports',
    summary: 'Download one listed export file, streamed',
    params: exportFileParam,
    response: 'download',
    notFound: true,
    optionalPart: true,
  },
  {
    method: 'get',
    path: '/api/v1/receipts/{id}',
    operationId: 'getReceipt',
    tag: 'receipts',
    summary: 'The receipt HTML of an item, sandboxed by its Content-Security-Policy',
    params: idParam,
    response: 'html',
    notFound: true,
    optionalPart: true,
  },
  {
    method: 'post',
    path: '/api/v1/replay',
    operationId: 'replay',
    tag: 'replay',
    summary: 'Run an inbox event, or every event since an instant, through the workers again',
    body: replayBody,
    response: replayResult,
  },
  {
    method: 'get',
    path: '/api/v1/endpoints',
    operationId: 'listEndpoints',
    tag: 'endpoints',
    summary: "The relay's endpoints, oldest first, each with its health (never its secret)",
    query: pageQuery,
    response: endpointPage,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints',
    operationId: 'addEndpoint',
    tag: 'endpoints',
    summary: 'Add an endpoint; the answer holds its signing secret, this once',
    body: endpointAddBody,
    response: endpointCreated,
    successStatus: 201,
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/pending',
    operationId: 'listUndeliveredEvents',
    tag: 'endpoints',
    summary: 'What was never delivered: pending and given-up deliveries, oldest event first',
    query: pendingQuery,
    response: undeliveredPage,
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/{id}',
    operationId: 'getEndpoint',
    tag: 'endpoints',
    summary: 'One endpoint with its health and its last 20 attempts',
    params: endpointIdParam,
    response: endpointDetailBody,
    notFound: true,
  },
  {
    method: 'delete',
    path: '/api/v1/endpoints/{id}',
    operationId: 'deleteEndpoint',
    tag: 'endpoints',
    summary: 'Delete an endpoint with its deliveries and delivery log',
    params: endpointIdParam,
    response: endpointDeletedBody,
    notFound: true,
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/{id}/deliveries',
    operationId: 'listEndpointAttempts',
    tag: 'endpoints',
    summary: "An endpoint's delivery attempts (the delivery log), newest first",
    params: endpointIdParam,
    query: pageQuery,
    response: deliveryAttemptPage,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/{id}/disable',
    operationId: 'disableEndpoint',
    tag: 'endpoints',
    summary: 'Stop delivering to an endpoint (its pending deliveries wait); idempotent',
    params: endpointIdParam,
    response: endpointBody,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/{id}/enable',
    operationId: 'enableEndpoint',
    tag: 'endpoints',
    summary: 'Deliver to an endpoint again; its pending deliveries are due at once',
    params: endpointIdParam,
    response: endpointEnabledBody,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/{id}/rotate-secret',
    operationId: 'rotateEndpointSecret',
    tag: 'endpoints',
    summary: 'A new signing secret (answered this once); the previous one signs too for 24 h',
    params: endpointIdParam,
    response: endpointRotatedBody,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/{id}/test',
    operationId: 'testEndpoint',
    tag: 'endpoints',
    summary: 'Send the endpoint a signed ping now and answer how it answered',
    params: endpointIdParam,
    response: endpointPingBody,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/{id}/redeliver',
    operationId: 'redeliverToEndpoint',
    tag: 'endpoints',
    summary: 'Deliver the endpoint events again, since an instant or one by id, in event order',
    params: endpointIdParam,
    body: endpointRedeliverBody,
    response: endpointRedeliveryResult,
    notFound: true,
  },
  {
    // The former name of redeliver (issue 41: `replay` is the inbox's word), kept for scripts.
    method: 'post',
    path: '/api/v1/endpoints/{id}/replay',
    operationId: 'replayToEndpoint',
    tag: 'endpoints',
    summary: 'Deprecated: the former path of POST /api/v1/endpoints/{id}/redeliver, same answers',
    params: endpointIdParam,
    body: endpointRedeliverBody,
    response: endpointRedeliveryResult,
    notFound: true,
    deprecated: true,
  },
  {
    method: 'get',
    path: '/api/v1/expectations',
    operationId: 'listExpectations',
    tag: 'expectations',
    summary: 'Expectations: of one state by window end, or all, latest loaded first',
    query: expectationListQuery,
    response: expectationPage,
  },
  {
    method: 'post',
    path: '/api/v1/expectations',
    operationId: 'importExpectations',
    tag: 'expectations',
    summary:
      'Load a batch of up to 10,000 expectations (idempotent by expectation_id); all or nothing unless partial=true',
    query: expectationImportQuery,
    body: expectationBatchBody,
    response: expectationImportBody,
    bodyLimit: '32mb',
  },
  {
    method: 'get',
    path: '/api/v1/expectations/{id}',
    operationId: 'getExpectation',
    tag: 'expectations',
    summary: 'One expectation with its history, matches and breaks',
    params: expectationIdParam,
    response: expectationDetailBody,
    notFound: true,
  },
  {
    method: 'post',
    path: '/api/v1/expectations/{id}/resolve',
    operationId: 'resolveExpectation',
    tag: 'expectations',
    summary: 'Resolve an expectation by hand, with its open breaks (who, when and why kept)',
    params: expectationIdParam,
    body: expectationResolveBody,
    response: expectationResolvedBody,
    notFound: true,
    conflict: true,
  },
  {
    method: 'get',
    path: '/api/v1/expectation-breaks',
    operationId: 'listExpectationBreaks',
    tag: 'expectations',
    summary: 'Breaks of the expectations, newest first, each with its explanation',
    query: breakListQuery,
    response: breakPage,
  },
  {
    method: 'post',
    path: '/api/v1/expectation-breaks/resolve',
    operationId: 'resolveExpectationBreaks',
    tag: 'expectations',
    summary: 'Resolve by hand every open break of a kind and filter (or list them: dryRun)',
    body: breakResolveBody,
    response: breakResolvedBody,
  },
  {
    method: 'post',
    path: '/api/v1/expectation-breaks/{id}/resolve',
    operationId: 'resolveExpectationBreak',
    tag: 'expectations',
    summary: 'Resolve one break by hand, by its number (who, when and why kept)',
    params: numericIdParam,
    body: expectationResolveBody,
    response: oneBreakResolvedBody,
    notFound: true,
  },
] as const satisfies readonly OpsRouteDefinition[];

export const OPS_ROUTES: readonly OpsRouteDefinition[] = routes;

/** The operationIds of the table: the API router has exactly one handler for each. */
export type OpsOperationId = (typeof routes)[number]['operationId'];

/** The Express path of a table route, relative to {@link OPS_API_BASE}: `{id}` becomes `:id`. */
export function expressPathOf(definition: OpsRouteDefinition): string {
  if (!definition.path.startsWith(`${OPS_API_BASE}/`)) {
    throw new Error(`ops route ${definition.path} does not start with ${OPS_API_BASE}/`);
  }
  return definition.path.slice(OPS_API_BASE.length).replace(/\{(\w+)\}/g, ':$1');
}
