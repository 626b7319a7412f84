import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBreaks, showExpectation } from '../../src/expectations/index.ts';
import { createOpsRouter, createOpsServer, type OpsServer } from '../../src/ops/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  COUNTERPARTY,
  EXPECTATIONS_NOW,
  seedExpectationBooks,
} from './support/expectation-books.ts';

const TOKEN = 'expectations-page-token-19b7e3';

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

const get = (path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });

async function stateOf(id: string) {
  return (await showExpectation(database.db, 'sandbox', id)).expectation;
}

/** The text of one table row of the page (tags dropped, spaces collapsed). */
function rowText(page: string, section: string, id: string): string | undefined {
  const body = page.split(`<section id="${section}">`)[1]?.split('</section>')[0] ?? '';
  const row = body.split('<tr').find((r) => r.includes(`data-id="${id}"`));
  return row
    ?.replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the Expectations page over plain HTTP', () => {
  it('is in the nav, counts by state, lists open and overdue expectations and open breaks, masks counterparties', async () => {
    const response = await get('/expectations');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<a href="/expectations" class="current"');
    expect(page).toMatch(/data-state="overdue">1</);
    expect(page).toMatch(/data-state="matched">1</);
    expect(page).toMatch(/data-state="partially_matched">1</);
    expect(page).toMatch(/data-kind="missing">1</);
    expect(page).toMatch(/data-kind="amount_mismatch">1</);
    expect(rowText(page, 'expectations', 'payroll-late')).toContain('25,000 XOF');
    expect(rowText(page, 'expectations', 'order-4711')).toContain('open');
    // Matched and partly matched ones are not "open and overdue".
    expect(rowText(page, 'expectations', 'order-4712')).toBeUndefined();
    expect(page).not.toContain(COUNTERPARTY);
    // The one policy of alerts and `show` (src/alerts/mask-number.ts), not a rule of its own.
    expect(rowText(page, 'expectations', 'payroll-late')).toContain(' 22177•••••34 ');
    expect(page).toContain('<td class="counterparty">22177•••••34</td>');
    const breaks = await listBreaks(database.db, 'sandbox', { state: 'open' });
    expect(breaks).toHaveLength(2);
    for (const b of breaks) {
      expect(rowText(page, 'breaks', String(b.id))).toContain(b.kind);
    }
  });

  it('filters by state and break kind as query parameters', async () => {
    const matched = await (await get('/expectations?state=matched&kind=missing')).text();
    expect(rowText(matched, 'expectations', 'order-4712')).toContain('matched');
    expect(rowText(matched, 'expectations', 'payroll-late')).toBeUndefined();
    const open = await listBreaks(database.db, 'sandbox', { state: 'open' });
    const missing = open.find((b) => b.kind === 'missing');
    const mismatch = open.find((b) => b.kind === 'amount_mismatch');
    expect(missing!.kind).toBe('missing');
    expect(rowText(matched, 'breaks', String(missing!.id))).toContain('missing');
    expect(rowText(matched, 'breaks', String(mismatch!.id))).toBeUndefined();
    // A hostile or unknown filter is ignored, never echoed as markup.
    const odd = await get('/expectations?state=%3Cscript%3E&kind=lost');
    expect(odd.status).toBe(200);
    expect(await odd.text()).not.toContain('<script>');
  });

  it('refuses a resolve form without this session’s CSRF token: 403, nothing changed', async () => {
    for (const path of [
      '/actions/expectations/payroll-late/resolve',
      `/actions/expectation-breaks/${(await listBreaks(database.db, 'sandbox'))[0]!.id}/resolve`,
    ]) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ csrf: 'forged', reason: 'sneaky' }).toString(),
      });
      expect(response.status, path).toBe(403);
      expect(await response.text()).toContain('This form is stale');
    }
    expect((await stateOf('payroll-late')).state).toBe('overdue');
    expect((await listBreaks(database.db, 'sandbox', { state: 'open' })).length).toBe(2);
    const anonymous = await fetch(`${server.url}/expectations`);
    expect(anonymous.status).toBe(401);
  });
});

describe('the Expectations page in a real browser', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('header nav');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('reaches the page from the nav and filters with the form', async () => {
    await page.click('header nav a[href="/expectations"]');
    await page.waitForSelector('#expectation-counts');
    expect(await page.locator('#expectations tr[data-id]').count()).toBe(2);
    await page.selectOption('#filters select[name=kind]', 'amount_mismatch');
    await page.click('#filters button');
    await page.waitForURL(/kind=amount_mismatch/);
    const rows = page.locator('#breaks tr[data-id]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('-10 XOF');
  });

  it('will not resolve without a reason, then resolves an expectation by hand and shows who, when and why', async () => {
    await page.goto(`${server.url}/expectations`);
    const row = page.locator('#expectations tr[data-id="payroll-late"]');
    await row.locator('button').click();
    // The browser refuses the empty required reason: nothing was sent.
    expect(
      await row
        .locator('input[name=reason]')
        .evaluate(
          (input) => (input as { validity: { valueMissing: boolean } }).validity.valueMissing,
        ),
    ).toBe(true);
    expect((await stateOf('payroll-late')).state).toBe('overdue');
    // And the server refuses a blank one that gets past the browser.
    const csrf = await row.locator('input[name=csrf]').inputValue();
    const blank = await page.request.post(
      `${server.url}/actions/expectations/payroll-late/resolve`,
      {
        form: { csrf, reason: '   ' },
      },
    );
    expect(blank.status()).toBe(400);
    expect(await blank.text()).toContain('a reason is required');
    expect((await stateOf('payroll-late')).state).toBe('overdue');

    await row.locator('input[name=reason]').fill('paid in cash at the counter');
    await row.locator('input[name=by]').fill('awa');
    await row.locator('button').click();
    await page.waitForSelector('#expectation-counts');
    expect(await stateOf('payroll-late')).toMatchObject({
      state: 'resolved_manually',
      resolved_by: 'awa',
      resolved_at: EXPECTATIONS_NOW,
      resolution_reason: 'paid in cash at the counter',
    });
    expect(await page.locator('#expectations tr[data-id="payroll-late"]').count()).toBe(0);
    expect(await page.locator('[data-state="resolved_manually"]').textContent()).toBe('1');
    await page.selectOption('#filters select[name=state]', 'resolved_manually');
    await page.click('#filters button');
    await page.waitForURL(/state=resolved_manually/);
    const resolved = page.locator('#expectations tr[data-id="payroll-late"]');
    expect(await resolved.textContent()).toMatch(
      new RegExp(
        `resolved by hand\\s+by awa at\\s+${EXPECTATIONS_NOW}:\\s+paid in cash at the counter`,
      ),
    );
    expect(await resolved.locator('form').count()).toBe(0);
  });

  it('resolves an open break by hand and comes back to the same filters', async () => {
    await page.goto(`${server.url}/expectations?kind=amount_mismatch`);
    const [mismatch] = await listBreaks(database.db, 'sandbox', {
      state: 'open',
      kind: 'amount_mismatch',
    });
    const row = page.locator(`#breaks tr[data-id="${mismatch!.id}"]`);
    await row.locator('input[name=reason]').fill('bank rounding');
    await row.locator('button').click();
    await page.waitForURL(/\/expectations\?kind=amount_mismatch$/);
    expect(await page.locator('#breaks tr[data-id]').count()).toBe(0);
    const [after] = await listBreaks(database.db, 'sandbox', { kind: 'amount_mismatch' });
    expect(after).toMatchObject({
      state: 'resolved',
      resolved_by: 'dashboard',
      resolution_reason: 'bank rounding',
    });
    await page.goto(`${server.url}/expectations?kind=amount_mismatch&break_state=resolved`);
    expect(await page.locator(`#breaks tr[data-id="${mismatch!.id}"]`).textContent()).toContain(
      'resolved by hand',
    );
  });
});
