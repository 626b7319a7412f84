import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelExpectation, listBreaks, showExpectation } from '../../src/expectations/index.ts';
import {
  AuthThrottle,
  createOpsRouter,
  createOpsServer,
  OPS_ROUTES,
  type OpsServer,
} from '../../src/ops/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { validateAnswer } from './support/openapi-validator.ts';
import {
  COUNTERPARTY,
  EXPECTATIONS_NOW,
  seedExpectationBooks,
} from './support/expectation-books.ts';

const TOKEN = 'expectations-token-8e41c0d2';

/** The JSON answers these tests read: a loose view, since the OpenAPI check does the typing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let database: TestDatabase;
let server: OpsServer;

beforeAll(async () => {
  database = await freshDatabase();
  await seedExpectationBooks(database.db);
  const logger = pino({ level: 'silent' });
  server = createOpsServer({
    routes: createOpsRouter({
      db: database.db,
      logger,
      now: () => new Date(EXPECTATIONS_NOW),
      tokens: [TOKEN],
      environment: 'sandbox',
      timeZone: 'UTC',
      // These tests try wrong tokens on every route from one address; the throttle has tests
      // of its own (ops-security.db.test.ts).
      throttle: new AuthThrottle(logger, 10_000),
    }),
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  await server.start();
});
afterAll(async () => {
  await server?.stop();
  await database?.cleanup();
});

function templateOf(path: string): string {
  const bare = path.split('?')[0]!;
  if (bare.startsWith('/api/v1/expectation-breaks'))
    return bare.replace(/\/\d+\/resolve$/, '/{id}/resolve');
  return bare
    .replace(/^\/api\/v1\/expectations\/[^/]+\/resolve$/, '/api/v1/expectations/{id}/resolve')
    .replace(/^\/api\/v1\/expectations\/[^/]+$/, '/api/v1/expectations/{id}');
}

/** Calls a route and checks the answer against the OpenAPI document. */
async function documented(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; token?: string | null } = {},
): Promise<{ status: number; body: Json }> {
  const token = options.token === undefined ? TOKEN : options.token;
  const payload =
    options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const body = (await response.json()) as Json;
  expect(
    validateAnswer(templateOf(path), method.toLowerCase(), response.status, body),
    `${method} ${path}`,
  ).toEqual([]);
  return { status: response.status, body };
}

const row = (id: string, overrides: Record<string, unknown> = {}) => ({
  expectation_id: id,
  direction: 'in',
  currency: 'XOF',
  amount: 12000,
  window_from: '2026-03-01',
  window_to: '2026-03-31',
  reference: id,
  ...overrides,
});

async function stateOf(id: string) {
  return (await showExpectation(database.db, 'sandbox', id)).expectation;
}

describe('/api/v1/expectations', () => {
  it('refuses every expectations route without the token or with a wrong one, changing nothing', async () => {
    const routes = OPS_ROUTES.filter((route) => route.tag === 'expectations');
    expect(routes.map((route) => `${route.method} ${route.path}`)).toHaveLength(7);
    for (const route of routes) {
      const path = route.path.replace(
        '{id}',
        route.path.startsWith('/api/v1/expectation-breaks') ? '1' : 'payroll-late',
      );
      for (const token of [null, 'wrong-token']) {
        const answer = await documented(route.method.toUpperCase(), path, {
          token,
          ...(route.method === 'post'
            ? {
                body: route.path.endsWith('/resolve')
                  ? { reason: 'x', kind: 'missing' }
                  : [row('sneaky')],
              }
            : {}),
        });
        expect(answer.status, `${route.method} ${route.path}`).toBe(401);
        expect(answer.body).toEqual({
          error: { code: 'unauthorized', message: 'authentication required' },
        });
      }
    }
    expect((await stateOf('payroll-late')).state).toBe('overdue');
    await expect(showExpectation(database.db, 'sandbox', 'sneaky')).rejects.toThrow(
      /no expectation/,
    );
  });

  it('lists expectations by state and pages them by cursor', async () => {
    const overdue = await documented('GET', '/api/v1/expectations?state=overdue');
    expect(overdue.status).toBe(200);
    expect(overdue.body.data.map((e: Json) => e.expectation_id)).toEqual(['payroll-late']);
    expect(overdue.body.data[0]).toMatchObject({
      state: 'overdue',
      amount_min: 25000,
      counterparty: COUNTERPARTY,
      metadata: { run: 'payroll-2026-03' },
    });
    const first = await documented('GET', '/api/v1/expectations?limit=3');
    expect(first.body.data).toHaveLength(3);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await documented(
      'GET',
      `/api/v1/expectations?limit=3&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.nextCursor).toBeNull();
    expect(
      [...first.body.data, ...second.body.data].map((e: Json) => e.expectation_id).sort(),
    ).toEqual(['order-4711', 'order-4712', 'payout-7', 'payroll-late']);
    const bad = await documented('GET', '/api/v1/expectations?state=lost');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('bad_parameter');
    expect(bad.body.error.message).toMatch(/^state: /);
  });

  it('shows one expectation with its history, matches and breaks; 404 for an unknown id', async () => {
    const shown = await documented('GET', '/api/v1/expectations/payout-7');
    expect(shown.status).toBe(200);
    expect(shown.body.data.expectation).toMatchObject({
      state: 'partially_matched',
      matched_amount: 24990,
    });
    expect(shown.body.data.matches).toEqual([
      expect.objectContaining({ item_id: 'tr_7', amount: 24990, rule: expect.any(String) }),
    ]);
    expect(shown.body.data.breaks).toEqual([
      expect.objectContaining({ kind: 'amount_mismatch', difference: -10, state: 'open' }),
    ]);
    expect(shown.body.data.history[0]).toMatchObject({ change: 'created', version: 1 });
    const unknown = await documented('GET', '/api/v1/expectations/no-such-thing');
    expect(unknown.status).toBe(404);
    // Worded for the API: no `paysync expect list` (a CLI command) in its answer.
    expect(unknown.body.error).toEqual({
      code: 'not_found',
      message:
        'no expectation "no-such-thing" in the sandbox books (GET /api/v1/expectations lists them)',
    });
  });

  it('lists breaks by state and kind', async () => {
    const open = await documented('GET', '/api/v1/expectation-breaks?state=open');
    expect(open.body.data.map((b: Json) => [b.kind, b.expectation_id]).sort()).toEqual([
      ['amount_mismatch', 'payout-7'],
      ['missing', 'payroll-late'],
    ]);
    const missing = await documented('GET', '/api/v1/expectation-breaks?kind=missing');
    expect(missing.body.data.map((b: Json) => b.expectation_id)).toEqual(['payroll-late']);
    expect(missing.body.data[0].explanation).toContain('25,000 XOF');
    const bad = await documented('GET', '/api/v1/expectation-breaks?kind=lost');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^kind: /);
  });

  it('loads a batch like a file: created, then unchanged, then an update with its history', async () => {
    const batch = [row('api-1'), row('api-2', { amount: 3000 })];
    const created = await documented('POST', '/api/v1/expectations', { body: batch });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      created: 2,
      updated: 0,
      unchanged: 0,
      matched: 0,
      rows: 2,
      loaded: true,
      bad: [],
    });
    const again = await documented('POST', '/api/v1/expectations', { body: batch });
    expect(again.body.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    const changed = await documented('POST', '/api/v1/expectations', {
      body: [row('api-1', { amount: 12500 })],
    });
    expect(changed.body.data).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    const detail = await showExpectation(database.db, 'sandbox', 'api-1');
    expect(detail.expectation).toMatchObject({ amount_min: 12500, version: 2, state: 'open' });
    expect(detail.history.map((h) => [h.change, h.source, h.actor])).toEqual([
      ['created', 'api', 'ops-api'],
      ['updated', 'api', 'ops-api'],
    ]);
  });

  it('refuses a batch with a bad item: 400 naming its line and field, and loads nothing', async () => {
    const answer = await documented('POST', '/api/v1/expectations', {
      body: [row('api-3'), row('api-4', { amount: '12.50' }), 'not an object'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('bad_batch');
    expect(answer.body.error.message).toMatch(
      /^2 bad items of 3, nothing loaded .*; line 2 \(index 1\): amount: must be a whole, non-negative number of minor units/,
    );
    expect(answer.body.error.bad).toEqual([
      { index: 1, line: 2, field: 'amount', reason: expect.stringContaining('minor units') },
      { index: 2, line: 3, field: 'item', reason: expect.stringContaining('JSON object') },
    ]);
    await expect(showExpectation(database.db, 'sandbox', 'api-3')).rejects.toThrow(
      /no expectation/,
    );
  });

  it('with partial=true loads the good items and lists the bad ones', async () => {
    const answer = await documented('POST', '/api/v1/expectations?partial=true', {
      body: [row('api-5'), row('api-6', { direction: 'sideways' })],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ created: 1, loaded: true, badCount: 1 });
    expect(answer.body.data.bad).toEqual([
      { index: 1, line: 2, field: 'direction', reason: expect.any(String) },
    ]);
    expect((await stateOf('api-5')).state).toBe('open');
  });

  it('refuses a body that is not an array, malformed JSON, and a bad query: 400', async () => {
    const object = await documented('POST', '/api/v1/expectations', { body: row('api-7') });
    expect(object.status).toBe(400);
    expect(object.body.error.message).toMatch(/^body: must be a JSON array/);
    const malformed = await documented('POST', '/api/v1/expectations', {
      raw: '[{"expectation_id":',
    });
    expect(malformed.status).toBe(400);
    const query = await documented('POST', '/api/v1/expectations?partial=yes', { body: [] });
    expect(query.status).toBe(400);
    expect(query.body.error.message).toMatch(/^partial: /);
  });

  it('refuses more than 10,000 expectations with 413, loading nothing', async () => {
    const batch = Array.from({ length: 10_001 }, (_, i) => row(`big-${i}`));
    const answer = await documented('POST', '/api/v1/expectations', { body: batch });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({
      code: 'too_large',
      message: 'body: 10001 expectations; at most 10000 per request: split the batch',
    });
    await expect(showExpectation(database.db, 'sandbox', 'big-0')).rejects.toThrow(
      /no expectation/,
    );
  });

  it('resolves an expectation by hand with its open breaks; the reason is required', async () => {
    const noReason = await documented('POST', '/api/v1/expectations/payroll-late/resolve', {
      body: { reason: '   ' },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toMatch(/^reason: a reason is required/);
    const missing = await documented('POST', '/api/v1/expectations/payroll-late/resolve', {
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^reason: /);
    // Named as the API's field, not as the CLI's flag (it said "say who resolves it (by)").
    const nobody = await documented('POST', '/api/v1/expectations/payroll-late/resolve', {
      body: { reason: 'paid by hand', by: '  ' },
    });
    expect(nobody.status).toBe(400);
    expect(nobody.body.error).toEqual({
      code: 'bad_parameter',
      message: 'by: say who resolves it',
    });
    expect((await stateOf('payroll-late')).state).toBe('overdue');

    const resolved = await documented('POST', '/api/v1/expectations/payroll-late/resolve', {
      body: { reason: 'paid in cash at the counter', by: 'awa' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      outcome: 'resolved',
      breaksResolved: 1,
      expectation: {
        state: 'resolved_manually',
        resolved_by: 'awa',
        resolved_at: EXPECTATIONS_NOW,
        resolution_reason: 'paid in cash at the counter',
      },
    });
    const again = await documented('POST', '/api/v1/expectations/payroll-late/resolve', {
      body: { reason: 'twice' },
    });
    expect(again.body.data.outcome).toBe('already_resolved');
    const unknown = await documented('POST', '/api/v1/expectations/nope/resolve', {
      body: { reason: 'x' },
    });
    expect(unknown.status).toBe(404);
  });

  it('resolves open breaks in bulk by kind and difference, with a dry run first', async () => {
    const dry = await documented('POST', '/api/v1/expectation-breaks/resolve', {
      body: { kind: 'amount_mismatch', maxDifference: 10, reason: 'bank rounding', dryRun: true },
    });
    expect(dry.body.data).toMatchObject({ count: 1, dryRun: true });
    expect(dry.body.data.breaks[0]).toMatchObject({ expectation_id: 'payout-7', state: 'open' });
    const none = await documented('POST', '/api/v1/expectation-breaks/resolve', {
      body: { kind: 'amount_mismatch', maxDifference: 9, reason: 'bank rounding' },
    });
    expect(none.body.data.count).toBe(0);
    const bad = await documented('POST', '/api/v1/expectation-breaks/resolve', {
      body: { kind: 'amount_mismatch', reason: 'x', maxDifference: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^maxDifference: /);
    const done = await documented('POST', '/api/v1/expectation-breaks/resolve', {
      body: { kind: 'amount_mismatch', maxDifference: 10, reason: 'bank rounding' },
    });
    expect(done.body.data).toMatchObject({ count: 1, dryRun: false });
    const listed = await documented('GET', '/api/v1/expectation-breaks?kind=amount_mismatch');
    expect(listed.body.data[0]).toMatchObject({
      state: 'resolved',
      resolved_by: 'ops-api',
      resolved_at: EXPECTATIONS_NOW,
      resolution_reason: 'bank rounding',
    });
  });

  it('refuses to resolve a cancelled expectation: 409, nothing changed', async () => {
    await cancelExpectation(
      database.db,
      { environment: 'sandbox', now: () => new Date(EXPECTATIONS_NOW) },
      'order-4711',
      { source: 'test', actor: 'test', reason: 'order withdrawn' },
    );
    const answer = await documented('POST', '/api/v1/expectations/order-4711/resolve', {
      body: { reason: 'paid anyway' },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('conflict');
    expect(answer.body.error.message).toContain('is cancelled');
    expect((await stateOf('order-4711')).state).toBe('cancelled');
  });

  it('resolves one break by its number; an unknown number is 404', async () => {
    const [mismatch] = await listBreaks(database.db, 'sandbox', { kind: 'amount_mismatch' });
    const again = await documented('POST', `/api/v1/expectation-breaks/${mismatch!.id}/resolve`, {
      body: { reason: 'once more' },
    });
    expect(again.status).toBe(200);
    // Resolved in bulk above: it stays as it was.
    expect(again.body.data).toMatchObject({
      outcome: 'already_resolved',
      break: { resolution_reason: 'bank rounding' },
    });
    const unknown = await documented('POST', '/api/v1/expectation-breaks/999999/resolve', {
      body: { reason: 'x' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({
      code: 'not_found',
      message: 'no break 999999 in the sandbox books (GET /api/v1/expectation-breaks lists them)',
    });
    const noReason = await documented('POST', '/api/v1/expectation-breaks/1/resolve', {
      body: { by: 'awa' },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toMatch(/^reason: /);
  });
});
