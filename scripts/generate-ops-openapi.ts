/**
 * Generates docs/ops-api.openapi.json (OpenAPI 3.1) from the zod schemas the ops API
 * validates with (src/ops). `--check` fails instead of writing when the checked-in file is stale.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './write-or-check.ts';
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { OPS_ROUTES, errorBody, type OpsRouteDefinition } from '../src/ops/index.ts';

const OUTPUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/ops-api.openapi.json');

const TAGS: Record<string, string> = {
  items: 'Payment intents, transfers and refunds as the ledger mirrors them',
  discrepancies: 'Breaks paysync could not reconcile',
  alerts: 'Alerts, with ack and resolve',
  balances: 'Service balances against the ledger, and their history',
  reports: 'Daily verdicts and the report of a day',
  runs: 'Runs of the scheduled tasks',
  exports: 'Closed periods and export files',
  receipts: 'Receipts as sandboxed HTML',
  replay: 'Running inbox events through the workers again',
  endpoints: "The relay's endpoints: signed events to the merchant's systems (docs/relay.md)",
  expectations:
    'What the merchant expected to receive and to pay, matched against what settled, and the breaks (docs/expectations.md)',
};

const error = (description: string): ResponseConfig => ({
  description,
  content: { 'application/json': { schema: errorBody } },
});

function route(definition: OpsRouteDefinition): RouteConfig {
  const success: ResponseConfig =
    definition.response === 'html'
      ? {
          description:
            "The receipt HTML, with `Content-Security-Policy: sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:`",
          content: { 'text/html': { schema: { type: 'string' } } },
        }
      : definition.response === 'download'
        ? {
            description:
              'The file, streamed as an attachment: `text/csv`, `application/x-ndjson` (jsonl) or `text/plain` (hledger, beancount), UTF-8',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/x-ndjson': { schema: { type: 'string' } },
              'text/plain': { schema: { type: 'string' } },
            },
          }
        : {
            description: 'Success',
            content: { 'application/json': { schema: definition.response } },
          };
  const responses: Record<number, ResponseConfig> = {
    [definition.successStatus ?? 200]: success,
    401: error('No token, or a wrong one (no detail is given)'),
    429: error(
      '`too_many_failures`: 5 failed authentications from this client address within a minute; `Retry-After` says when to try again',
    ),
    503: error(
      '`database_unavailable` (`tenant_unavailable` under `/api/v1/tenants/<tenant>/…`, also while that tenant is paused): the database does not answer or refuses writes, nothing was changed; `Retry-After` says when to try again',
    ),
  };
  if (definition.params || definition.query || definition.body) {
    responses[400] = error('A bad parameter, named in the message');
  }
  if (definition.notFound) responses[404] = error('Unknown id');
  if (definition.conflict) responses[409] = error('Its state forbids it (named in the message)');
  if (definition.bodyLimit) {
    responses[413] = error(
      `\`too_large\`: more items than one request may carry, or over ${definition.bodyLimit}`,
    );
  }
  if (definition.optionalPart) {
    responses[501] = error('`not_available`: this process was started without that part');
  }
  return {
    method: definition.method,
    path: definition.path,
    operationId: definition.operationId,
    tags: [definition.tag],
    summary: definition.summary,
    ...(definition.deprecated ? { deprecated: true } : {}),
    request: {
      ...(definition.params ? { params: definition.params } : {}),
      ...(definition.query ? { query: definition.query } : {}),
      ...(definition.body
        ? {
            body: {
              required: true,
              content: { 'application/json': { schema: definition.body } },
            },
          }
        : {}),
    },
    responses,
  };
}

export function generateOpsDocument(): string {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'AdminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'One of the tokens in PAYSYNC_ADMIN_TOKEN (comma-separated for rotation)',
  });
  for (const definition of OPS_ROUTES) registry.registerPath(route(definition));
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'paysync ops API',
      version: '1.0.0',
      description:
        'The ops API of paysync (see docs/ops.md). Generated from the zod schemas in src/ops that the handlers validate with. Lists answer `{ data, nextCursor }`; pass `nextCursor` back as `cursor` for the next page.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The receiver, or PAYSYNC_OPS_PORT',
        variables: { base_url: { default: 'http://127.0.0.1:8080' } },
      },
    ],
    security: [{ AdminToken: [] }],
    tags: [...new Set(OPS_ROUTES.map((r) => r.tag))].map((name) => ({
      name,
      description: TAGS[name] ?? name,
    })),
  });
  return `${JSON.stringify(document, null, 2)}\n`;
}

writeOrCheck(OUTPUT, generateOpsDocument(), 'docs/ops-api.openapi.json', 'npm run openapi:ops');
