import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertRuntime, raiseAlert, type AlertRuntime } from '../../src/alerts/index.ts';
import { closePeriod, runDailyExport, type ManifestDay } from '../../src/exports/index.ts';
import { createLogger } from '../../src/logger.ts';
import { archiveReceipt } from '../../src/receipts/index.ts';
import type { RunningDaemon } from '../../src/daemon/index.ts';
import { insertInboxEvent, markInboxStatus } from '../../src/inbox/index.ts';
import { metricsRegistry } from '../../src/metrics/index.ts';
import { OPS_ROUTES } from '../../src/ops/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { validateAnswer } from './support/openapi-validator.ts';
import { DAY_SIM_OPTIONS, simulateDay, type SimulatedDay } from './support/ops-day.ts';

const OLD_TOKEN = 'ops-token-old-6f1c2a9e';
const NEW_TOKEN = 'ops-token-new-b83d07c4';

/** The JSON answers these tests read: a loose view, since the OpenAPI check does the typing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

async function refusals(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('paysync_ops_refused_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('the ops API', () => {
  let fixture: DaemonFixture;
  let daemon: RunningDaemon;
  let day: SimulatedDay;
  let base: string;
  let receiptsDir: string;
  let exportsDir: string;
  let dailyCsv: { id: string; path: string; sha256: string; rows: number };
  let closedPeriod: string;
  let alertRuntime: AlertRuntime;

  /** A concrete URL for each documented route. */
  function concrete(template: string): string {
    return template
      .replace('/items/{id}', `/items/${day.failedTransferId}`)
      .replace('/discrepancies/{id}', `/discrepancies/${day.discrepancyId}`)
      .replace('/reports/{date}', `/reports/${day.yesterday}`)
      .replace('/alerts/{id}', '/alerts/987654')
      .replace('/receipts/{id}', '/receipts/tr_without_receipt')
      .replace('/exports/{id}', `/exports/${dailyCsv.id}`)
      .replace('{id}', '1');
  }

  const call = (path: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });

  beforeAll(async () => {
    fixture = await createDaemonFixture({ sim: DAY_SIM_OPTIONS });
    receiptsDir = await mkdtemp(join(tmpdir(), 'paysync-ops-receipts-'));
    exportsDir = await mkdtemp(join(tmpdir(), 'paysync-ops-exports-'));
    alertRuntime = createAlertRuntime(fixture.config.alerts, createLogger({ level: 'silent' }), {
      now: () => new Date(),
      environment: fixture.config.environment,
    });
    daemon = await fixture.startDaemon(['receiver'], {
      PAYSYNC_RECEIPTS_DIR: receiptsDir,
      PAYSYNC_EXPORT_DIR: exportsDir,
      PAYSYNC_ADMIN_TOKEN: `${OLD_TOKEN}, ${NEW_TOKEN}`,
      PAYSYNC_BOOKS_TIMEZONE: 'UTC',
      PAYSYNC_LOG_LEVEL: 'info',
      // These tests try many wrong tokens from one address; the throttle has tests of its own.
      PAYSYNC_AUTH_FAILURES_PER_MINUTE: '10000',
    });
    base = daemon.opsServer!.url;
    day = await simulateDay({ db: fixture.database.db, sim: fixture.sim, queues: daemon.queues });
    // Yesterday's scheduled export, and a month closed (forced, it has no verdicts) that
    // lies before the simulated day, so no later booking of these tests touches it.
    const db = fixture.database.db;
    const exportRequest = {
      db,
      environment: 'sandbox',
      timeZone: 'UTC',
      dir: exportsDir,
      now: new Date(),
    };
    await runDailyExport({ ...exportRequest, formats: ['csv', 'hledger'], day: day.yesterday });
    const [year, month] = day.yesterday.split('-').map(Number) as [number, number];
    closedPeriod = `${year - 1}-${String(month).padStart(2, '0')}`;
    await closePeriod({
      ...exportRequest,
      period: closedPeriod,
      formats: ['csv'],
      force: true,
      reason: 'ops test: a quiet month',
      by: 'test',
    });
    const folder = join(exportsDir, day.yesterday.slice(0, 4), day.yesterday.slice(5, 7));
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as {
      days: Record<string, ManifestDay>;
    };
    const csv = manifest.days[day.yesterday]!.files.find((f) => f.format === 'csv')!;
    dailyCsv = {
      id: `paysync-${day.yesterday}.csv`,
      path: join(folder, csv.file),
      sha256: csv.sha256,
      rows: csv.rows,
    };
  }, 60_000);
  afterAll(async () => {
    await alertRuntime?.close();
    await fixture?.cleanup();
    if (receiptsDir) await rm(receiptsDir, { recursive: true, force: true });
    if (exportsDir) await rm(exportsDir, { recursive: true, force: true });
  });

  it('says at start-up, in one line, that it is on', () => {
    const lines = fixture.logs.filter((line) => line.includes('ops API and dashboard'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ops API and dashboard on (2 admin tokens)');
    expect(lines[0]).toContain(`ops port ${base}`);
    expect(lines[0]).toContain('loopback only');
    expect(fixture.logs.join('')).not.toContain(OLD_TOKEN);
  });

  it('shows an item with its history and inbox events, and the break with its explanation', async () => {
    const item = await json(
      await call(`/api/v1/items/${day.failedTransferId}`, { token: NEW_TOKEN }),
    );
    expect(item.record).toMatchObject({ id: day.failedTransferId, status: 'failed' });
    expect(item.history.length).toBeGreaterThan(0);
    const breaks = await json(await call('/api/v1/discrepancies', { token: NEW_TOKEN }));
    expect(breaks.data).toEqual([
      expect.objectContaining({
        id: day.discrepancyId,
        kind: 'amount_changed',
        line: expect.any(String),
      }),
    ]);
    const balances = await json(await call('/api/v1/balances', { token: NEW_TOKEN }));
    expect(balances.data.map((b: { accountType: string }) => b.accountType).sort()).toEqual([
      'collection',
      'transfer',
    ]);
    const report = await json(await call(`/api/v1/reports/${day.yesterday}`, { token: NEW_TOKEN }));
    expect(report).toMatchObject({ stored: true, data: { day: day.yesterday } });
  });

  it('refuses every route and the dashboard without a token, or with a wrong one: 401, no detail, counted', async () => {
    const before = await refusals();
    let refused = 0;
    for (const route of OPS_ROUTES) {
      for (const token of [undefined, 'not-the-token', `${NEW_TOKEN}x`]) {
        const response = await call(concrete(route.path), {
          method: route.method.toUpperCase(),
          ...(token ? { token } : {}),
          ...(route.body ? { body: JSON.stringify({ inboxId: 1 }) } : {}),
        });
        expect(response.status, `${route.method} ${route.path}`).toBe(401);
        const body = await json(response);
        expect(body).toEqual({
          error: { code: 'unauthorized', message: 'authentication required' },
        });
        expect(validateAnswer(route.path, route.method, 401, body)).toEqual([]);
        refused += 1;
      }
    }
    const page = await call('/');
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('Log in');
    const board = await call('/admin/queues');
    expect(board.status).toBe(401);
    expect(await refusals()).toBe(before + refused + 2);
  });

  it("opens the dashboard pages and the queue board to a script's bearer token, and nothing else", async () => {
    for (const path of [
      '/',
      '/balances',
      '/pipeline',
      '/exports',
      '/endpoints',
      '/expectations',
      `/items/${day.failedTransferId}`,
    ]) {
      const page = await call(path, { token: OLD_TOKEN });
      expect(page.status, path).toBe(200);
      expect(await page.text(), path).toContain('Log out');
    }
    const today = await (await call('/', { token: NEW_TOKEN })).text();
    expect(today).toContain(day.failedTransferId);
    expect((await call('/admin/queues', { token: NEW_TOKEN })).status).toBe(200);
    const before = await refusals();
    for (const token of ['not-the-token', `${NEW_TOKEN}x`]) {
      const refused = await call('/', { token });
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('Log in');
    }
    expect(await refusals()).toBe(before + 2);
    // Form actions still want the CSRF token of a page: a bare POST changes nothing.
    const action = await call(`/actions/discrepancies/${day.discrepancyId}/resolve`, {
      method: 'POST',
      token: NEW_TOKEN,
    });
    expect(action.status).toBe(403);
    const still = await fixture.database.db
      .selectFrom('discrepancies')
      .select('resolved_at')
      .where('id', '=', day.discrepancyId)
      .executeTakeFirstOrThrow();
    expect(still.resolved_at).toBeNull();
  });

  it('answers every documented route with a right token (either one), matching the OpenAPI document', async () => {
    // The relay's endpoint routes change what they touch (add, delete, rotate): their answers
    // are checked against the document route by route in endpoints-api.db.test.ts, and the
    // expectations' (a batch load, resolutions) in expectations-api.db.test.ts.
    for (const route of OPS_ROUTES.filter((r) => !['endpoints', 'expectations'].includes(r.tag))) {
      for (const token of [OLD_TOKEN, NEW_TOKEN]) {
        const response = await call(concrete(route.path), {
          method: route.method.toUpperCase(),
          token,
          ...(route.body ? { body: JSON.stringify({ inboxId: 999_999 }) } : {}),
        });
        // The alert and receipt ids above are unknown: their documented answer is 404.
        const expected = /\/(alerts|receipts)\/\{id\}/.test(route.path) ? 404 : 200;
        expect(response.status, `${route.method} ${route.path}`).toBe(expected);
        if (route.response === 'download') {
          expect(response.headers.get('content-disposition')).toContain('attachment');
          await response.arrayBuffer();
          continue;
        }
        const body = await json(response);
        expect(validateAnswer(route.path, route.method, expected, body), route.path).toEqual([]);
      }
    }
  });

  it('lists the failed transfer with a status filter and pages by cursor', async () => {
    const failed = await call('/api/v1/transfers?status=failed', { token: NEW_TOKEN });
    const failedBody = await json(failed);
    expect(failedBody.data.map((t: { id: string }) => t.id)).toEqual([day.failedTransferId]);
    expect(failedBody.nextCursor).toBeNull();

    const first = await json(await call('/api/v1/transfers?limit=1', { token: NEW_TOKEN }));
    expect(first.data).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await json(
      await call(`/api/v1/transfers?limit=1&cursor=${first.nextCursor}`, { token: NEW_TOKEN }),
    );
    expect(second.data).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect(new Set([first.data[0].id, second.data[0].id])).toEqual(
      new Set([day.failedTransferId, day.okTransferId]),
    );
    const since = await json(
      await call('/api/v1/transfers?since=2999-01-01T00:00:00.000Z', { token: NEW_TOKEN }),
    );
    expect(since.data).toEqual([]);
  });

  it('answers 400 naming the parameter, and 404 for an unknown id, in the one error shape', async () => {
    const cases: [string, string][] = [
      ['/api/v1/transfers?limit=0', 'limit'],
      ['/api/v1/transfers?limit=abc', 'limit'],
      ['/api/v1/transfers?since=yesterday', 'since'],
      ['/api/v1/transfers?cursor=bm9wZQ', 'cursor'],
      // A forged cursor past row 10,000 (o999999999) would read the whole table (issue 38.9).
      ['/api/v1/transfers?cursor=bzk5OTk5OTk5OQ', 'cursor'],
      ['/api/v1/transfers?colour=red', 'colour'],
      ['/api/v1/transfers?status=Failed!', 'status'],
      ['/api/v1/reports/2026-13-45', 'date'],
    ];
    for (const [path, parameter] of cases) {
      const response = await call(path, { token: NEW_TOKEN });
      expect(response.status, path).toBe(400);
      const body = await json(response);
      expect(body.error.code).toBe('bad_parameter');
      expect(body.error.message.startsWith(`${parameter}:`), body.error.message).toBe(true);
    }
    const replay = await call('/api/v1/replay', {
      method: 'POST',
      token: NEW_TOKEN,
      body: JSON.stringify({ inboxId: 'x' }),
    });
    expect(replay.status).toBe(400);
    expect((await json(replay)).error.message).toMatch(/^inboxId:/);
    const unknown = await call('/api/v1/items/tr_nope', { token: NEW_TOKEN });
    expect(unknown.status).toBe(404);
    const unknownBody = await json(unknown);
    expect(unknownBody).toEqual({
      error: { code: 'not_found', message: 'no item with id tr_nope' },
    });
    expect(validateAnswer('/api/v1/items/{id}', 'get', 404, unknownBody)).toEqual([]);
  });

  it('lists the closed period and the daily files, filtered and paged by cursor', async () => {
    const all = await json(await call('/api/v1/exports', { token: NEW_TOKEN }));
    expect(validateAnswer('/api/v1/exports', 'get', 200, all)).toEqual([]);
    expect(all.nextCursor).toBeNull();
    expect(all.data.map((e: Json) => `${e.kind} ${e.period} ${e.format}`)).toEqual([
      `daily ${day.yesterday} csv`,
      `daily ${day.yesterday} hledger`,
      `closed_period ${closedPeriod} csv`,
    ]);
    expect(all.data[0]).toMatchObject({
      id: dailyCsv.id,
      sha256: dailyCsv.sha256,
      rows: dailyCsv.rows,
      verdict: expect.any(String),
    });
    expect(all.data[2]).toMatchObject({ forced: true, reason: 'ops test: a quiet month' });
    expect(JSON.stringify(all)).not.toContain(exportsDir);

    const first = await json(await call('/api/v1/exports?limit=2', { token: NEW_TOKEN }));
    expect(first.data).toHaveLength(2);
    const second = await json(
      await call(`/api/v1/exports?limit=2&cursor=${first.nextCursor}`, { token: NEW_TOKEN }),
    );
    expect(second).toEqual({ data: [all.data[2]], nextCursor: null });

    const closed = await json(
      await call('/api/v1/exports?kind=closed_period', { token: NEW_TOKEN }),
    );
    expect(closed.data.map((e: Json) => e.id)).toEqual([`paysync-${closedPeriod}.csv`]);
    const ledgers = await json(await call('/api/v1/exports?format=hledger', { token: NEW_TOKEN }));
    expect(ledgers.data.map((e: Json) => e.id)).toEqual([`paysync-${day.yesterday}.journal`]);

    const bad = await call('/api/v1/exports?kind=weekly', { token: NEW_TOKEN });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(/^kind/);
  });

  it("streams an export file whose bytes and sha256 are the manifest's; refuses traversal", async () => {
    const response = await call(`/api/v1/exports/${dailyCsv.id}`, { token: NEW_TOKEN });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename=${dailyCsv.id}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(await readFile(dailyCsv.path))).toBe(true);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(dailyCsv.sha256);

    for (const id of [
      '..%2F..%2Fetc%2Fpasswd',
      '..%2Fmanifest.json',
      'paysync-2026-11-20.csv%00',
    ]) {
      const refused = await call(`/api/v1/exports/${id}`, { token: NEW_TOKEN });
      expect(refused.status, id).toBe(400);
      const body = await json(refused);
      expect(body.error.code).toBe('bad_parameter');
      expect(body.error.message).toMatch(/^id/);
    }
    const unknown = await call('/api/v1/exports/paysync-2099-01-01.csv', { token: NEW_TOKEN });
    expect(unknown.status).toBe(404);
    expect(validateAnswer('/api/v1/exports/{id}', 'get', 404, await json(unknown))).toEqual([]);
  });

  it('resolves a break (idempotent) and replays an inbox event', async () => {
    const path = `/api/v1/discrepancies/${day.discrepancyId}/resolve`;
    const first = await json(await call(path, { method: 'POST', token: NEW_TOKEN }));
    // The contract test above resolved it already; resolving again changes nothing.
    expect(first).toEqual({ data: { id: day.discrepancyId, resolved: false } });
    const row = await fixture.database.db
      .selectFrom('discrepancies')
      .select('resolved_at')
      .where('id', '=', day.discrepancyId)
      .executeTakeFirstOrThrow();
    expect(row.resolved_at).not.toBeNull();
    const missing = await call('/api/v1/discrepancies/987654/resolve', {
      method: 'POST',
      token: NEW_TOKEN,
    });
    expect(missing.status).toBe(404);
  });

  it('acks and resolves a raised alert (the database shows it), and answers 404 for an unknown or resolved one', async () => {
    const deps = { db: fixture.database.db, alerts: alertRuntime };
    const raised = await raiseAlert(deps, {
      kind: 'transfer_failed',
      subject: day.failedTransferId,
      title: `transfer ${day.failedTransferId} failed`,
    });
    const id = raised.alert.id;
    const stateOf = () =>
      fixture.database.db
        .selectFrom('alerts')
        .select(['status', 'acked_at', 'resolved_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect((await stateOf()).status).toBe('open');

    const ack = await call(`/api/v1/alerts/${id}/ack`, { method: 'POST', token: NEW_TOKEN });
    expect(ack.status).toBe(200);
    const ackBody = await json(ack);
    expect(ackBody).toEqual({ data: { id, acked: true } });
    expect(validateAnswer('/api/v1/alerts/{id}/ack', 'post', 200, ackBody)).toEqual([]);
    expect(await stateOf()).toMatchObject({ status: 'acked', acked_at: expect.any(String) });
    const listed = await json(await call('/api/v1/alerts', { token: NEW_TOKEN }));
    expect(listed.data).toContainEqual(expect.objectContaining({ id, state: 'acked' }));

    const resolve = await call(`/api/v1/alerts/${id}/resolve`, {
      method: 'POST',
      token: NEW_TOKEN,
    });
    expect(resolve.status).toBe(200);
    expect(await json(resolve)).toEqual({ data: { id, resolved: true } });
    expect(await stateOf()).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });

    for (const path of [`/api/v1/alerts/${id}/ack`, '/api/v1/alerts/987654/ack']) {
      const refused = await call(path, { method: 'POST', token: NEW_TOKEN });
      expect(refused.status, path).toBe(404);
      const body = await json(refused);
      expect(body.error.code).toBe('not_found');
      expect(validateAnswer('/api/v1/alerts/{id}/ack', 'post', 404, body)).toEqual([]);
    }
    const unknownResolve = await call('/api/v1/alerts/987654/resolve', {
      method: 'POST',
      token: NEW_TOKEN,
    });
    expect(unknownResolve.status).toBe(404);
  });

  it('serves the newest archived receipt of an item under the sandboxing policy, 404 without one', async () => {
    const db = fixture.database.db;
    const receipt = (n: number) => ({
      resourceKind: 'transfer' as const,
      resourceId: day.okTransferId,
      html: `<html><body><h1>Receipt ${n} of ${day.okTransferId}</h1></body></html>`,
      fetchedAt: `2026-01-0${n}T10:00:00.000Z`,
    });
    await archiveReceipt(db, receiptsDir, receipt(1));
    await archiveReceipt(db, receiptsDir, receipt(2));
    const response = await call(`/api/v1/receipts/${day.okTransferId}`, { token: NEW_TOKEN });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(
      "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toBe(receipt(2).html);
    const none = await call(`/api/v1/receipts/${day.failedTransferId}`, { token: NEW_TOKEN });
    expect(none.status).toBe(404);
    expect((await json(none)).error.code).toBe('not_found');
  });

  it('replays an inbox event: reopened and queued once, a second call changes nothing', async () => {
    const { inboxId } = await insertInboxEvent(fixture.database.db, {
      receivedAt: new Date(),
      dedupeKey: 'event:evt_ops_replay',
      eventId: 'evt_ops_replay',
      eventType: 'transfer.updated',
      rawBody: Buffer.from('{"id":"evt_ops_replay"}'),
      headers: {},
    });
    await markInboxStatus(fixture.database.db, inboxId, 'processed', { at: new Date() });
    const replay = () =>
      call('/api/v1/replay', {
        method: 'POST',
        token: NEW_TOKEN,
        body: JSON.stringify({ inboxId }),
      });
    const first = await replay();
    expect(first.status).toBe(200);
    const firstBody = await json(first);
    expect(firstBody).toEqual({ data: { matched: 1, queued: 1, alreadyQueued: 0, reopened: 1 } });
    expect(validateAnswer('/api/v1/replay', 'post', 200, firstBody)).toEqual([]);
    const row = await fixture.database.db
      .selectFrom('webhook_inbox')
      .select('status')
      .where('id', '=', inboxId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('received');
    expect(await json(await replay())).toEqual({
      data: { matched: 1, queued: 0, alreadyQueued: 1, reopened: 0 },
    });
  });

  it('lists an account the newest answer omits as not in the answer, never as 0 (runs last: it adds a snapshot)', async () => {
    const db = fixture.database.db;
    const asOf = new Date(Date.now() + 60_000).toISOString();
    // The newest answer lists only collection XOF; the ledger holds service:transfer XOF.
    await db
      .insertInto('balance_snapshots')
      .values({
        environment: 'sandbox',
        account_type: 'collection',
        currency: 'XOF',
        amount: 0,
        as_of: asOf,
        taken_at: asOf,
        kind: 'manual',
        raw: '{}',
      })
      .execute();
    const response = await call('/api/v1/balances', { token: NEW_TOKEN });
    expect(response.status).toBe(200);
    const balances = await json(response);
    expect(validateAnswer('/api/v1/balances', 'get', 200, balances)).toEqual([]);
    expect(balances.unanswered).toEqual([
      expect.objectContaining({
        accountType: 'transfer',
        account: 'service:transfer',
        currency: 'XOF',
        asOf,
        ledger: expect.any(Number),
      }),
    ]);
    expect(balances.unanswered[0].ledger).not.toBe(0);
    expect(balances.unanswered[0]).not.toHaveProperty('service');
  });
});

describe('the ops API with no token configured', () => {
  let fixture: DaemonFixture;
  afterAll(async () => fixture?.cleanup());

  it('does not exist (404) and start-up says so in one line', async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver'], { PAYSYNC_LOG_LEVEL: 'info' });
    for (const path of ['/api/v1/transfers', '/', '/admin/queues', '/balances', '/login']) {
      for (const port of [daemon.receiver!.url, daemon.opsServer!.url]) {
        const response = await fetch(`${port}${path}`);
        expect(response.status, `${port}${path}`).toBe(404);
      }
    }
    const lines = fixture.logs.filter((line) => line.includes('ops API and dashboard'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ops API and dashboard are off: set PAYSYNC_ADMIN_TOKEN');
  }, 30_000);
});

describe('the receiver port with default settings (issue 38)', () => {
  let fixture: DaemonFixture;
  afterAll(async () => fixture?.cleanup());

  it('answers an anonymous caller nothing but webhooks and health; metrics and ops are on the ops port', async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver', 'workers', 'scheduler'], {
      PAYSYNC_ADMIN_TOKEN: OLD_TOKEN,
      PAYSYNC_LOG_LEVEL: 'info',
    });
    const receiver = daemon.receiver!.url;
    for (const path of [
      '/metrics',
      '/api/v1/transfers',
      '/api/v1/balances',
      '/dashboard',
      '/',
      '/login',
      '/admin/queues',
      '/balances',
    ]) {
      const response = await fetch(`${receiver}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toMatch(/paysync_|<form/);
    }
    // Not even with the admin token: the receiver's port has no ops surface at all.
    const withToken = await fetch(`${receiver}/api/v1/transfers`, {
      headers: { authorization: `Bearer ${OLD_TOKEN}` },
    });
    expect(withToken.status).toBe(404);
    expect((await fetch(`${receiver}/healthz`)).status).toBe(200);
    expect((await fetch(`${receiver}/readyz`)).status).toBe(200);
    const moved = await fetch(`${receiver}/metrics`);
    expect(await moved.json()).toMatchObject({ error: 'not_found' });
    // Where they went: the ops port, on loopback, says so at start in one line.
    const ops = daemon.opsServer!;
    expect(new URL(ops.url).hostname).toBe('127.0.0.1');
    const metrics = await fetch(`${ops.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('paysync_');
    const own = await fetch(`${ops.url}/api/v1/transfers`, {
      headers: { authorization: `Bearer ${OLD_TOKEN}` },
    });
    expect(own.status).toBe(200);
    const lines = fixture.logs.filter((line) => line.includes(`ops port ${ops.url}`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `the receiver port ${daemon.receiver!.port} serves webhooks and health only (its /metrics moved here)`,
    );
    expect(fixture.logs.join('')).not.toContain(OLD_TOKEN);
    // The receiver's /metrics warns once that a scraper still looks for them there.
    await fetch(`${receiver}/metrics`);
    expect(
      fixture.logs.filter((line) => line.includes('GET /metrics came to the receiver port')),
    ).toHaveLength(1);
  }, 60_000);
});
