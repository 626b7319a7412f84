import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertRuntime, raiseAlert, type AlertRuntime } from '../../src/alerts/index.ts';
import { closePeriod, runDailyExport, type ManifestDay } from '../../src/exports/index.ts';
import { archiveReceipt } from '../../src/receipts/index.ts';
import {
  createOpsRouter,
  createOpsServer,
  RECEIPT_CSP,
  type OpsServer,
} from '../../src/ops/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { ingestJobId, type Queues } from '../../src/queues/index.ts';
import { addEndpoint } from '../../src/relay/index.ts';
import { seedDelivery, seedRelayEvent } from '../support/relay-endpoint-rows.ts';
import {
  addFailedTransfer,
  DAY_SIM_OPTIONS,
  HOSTILE_DESCRIPTION,
  simulateDay,
  type SimulatedDay,
} from './support/ops-day.ts';

const TOKEN = 'dashboard-token-3b9e51d2';
const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
// The tracked screenshots are written only by `npm run docs:screenshots` (scripts/
// docs-screenshots.ts, from realistic books), never by this test, whose fixtures are built to
// break the dashboard.

/** Each tracked screenshot's modification time and content hash. */
function screenshotFingerprints(): Record<string, string> {
  const prints: Record<string, string> = {};
  for (const name of readdirSync(SCREENSHOTS).filter((n) => n.endsWith('.png'))) {
    const path = resolve(SCREENSHOTS, name);
    const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
    prints[name] = `${statSync(path).mtimeMs} ${hash}`;
  }
  return prints;
}

/**
 * A receipt that would take over the page that frames it, if it could run: the sandbox must
 * stop it. It is archived with the receipts component, as the fetcher would.
 */
const HOSTILE_RECEIPT = `<html><body><h1>Receipt</h1><p>Paid 150000 XOF</p>
<script>document.body.setAttribute('data-ran', 'yes');
try { parent.document.title = 'hijacked'; parent.document.body.innerHTML = 'owned'; } catch (e) {}
</script></body></html>`;

describe('the dashboard in a real browser', () => {
  let fixture: DaemonFixture;
  let server: OpsServer;
  let day: SimulatedDay;
  let browser: Browser;
  let page: Page;
  let receiptsDir: string;
  let exportsDir: string;
  let manifestDay: ManifestDay;
  let closedPeriod: string;
  let alertRuntime: AlertRuntime;
  let alertId: number;
  let daemonQueues: Queues;
  let screenshotsBefore: Record<string, string>;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    screenshotsBefore = screenshotFingerprints();
    fixture = await createDaemonFixture({ sim: DAY_SIM_OPTIONS });
    const daemon = await fixture.startDaemon(['receiver'], { PAYSYNC_BOOKS_TIMEZONE: 'UTC' });
    daemonQueues = daemon.queues;
    day = await simulateDay({ db: fixture.database.db, sim: fixture.sim, queues: daemon.queues });
    receiptsDir = await mkdtemp(join(tmpdir(), 'paysync-dashboard-receipts-'));
    await archiveReceipt(fixture.database.db, receiptsDir, {
      resourceKind: 'transfer',
      resourceId: day.failedTransferId,
      html: HOSTILE_RECEIPT,
      fetchedAt: new Date().toISOString(),
    });
    exportsDir = await mkdtemp(join(tmpdir(), 'paysync-dashboard-exports-'));
    const exportRequest = {
      db: fixture.database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      dir: exportsDir,
      now: new Date(),
    };
    // Today's books hold the simulated day's journals; yesterday's file is empty but listed.
    await runDailyExport({ ...exportRequest, formats: ['csv'], day: day.yesterday });
    manifestDay = await runDailyExport({
      ...exportRequest,
      formats: ['csv', 'beancount'],
      day: new Date().toISOString().slice(0, 10),
    });
    expect(manifestDay.files.every((f) => f.rows > 0)).toBe(true);
    closedPeriod = `${Number(day.yesterday.slice(0, 4)) - 1}-${day.yesterday.slice(5, 7)}`;
    await closePeriod({
      ...exportRequest,
      period: closedPeriod,
      formats: ['csv', 'hledger'],
      force: true,
      reason: 'dashboard test: a quiet month',
      by: 'test',
    });
    alertRuntime = createAlertRuntime(fixture.config.alerts, pino({ level: 'silent' }), {
      now: () => new Date(),
      environment: fixture.config.environment,
    });
    const raised = await raiseAlert(
      { db: fixture.database.db, alerts: alertRuntime },
      {
        kind: 'transfer_failed',
        subject: day.failedTransferId,
        title: `Transfer ${day.failedTransferId} failed`,
      },
    );
    alertId = raised.alert.id;
    server = createOpsServer({
      routes: createOpsRouter({
        now: () => new Date(),
        db: fixture.database.db,
        logger: pino({ level: 'silent' }),
        tokens: [TOKEN],
        environment: 'sandbox',
        timeZone: 'UTC',
        queues: daemon.queues,
        alerts: alertRuntime,
        receiptsDir,
        exportsDir,
      }),
      port: 0,
      host: '127.0.0.1',
      logger: pino({ level: 'silent' }),
    });
    await server.start();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await alertRuntime?.close();
    await fixture?.cleanup();
    if (receiptsDir) await rm(receiptsDir, { recursive: true, force: true });
    if (exportsDir) await rm(exportsDir, { recursive: true, force: true });
  });

  it('logs in with the token once and keeps an HttpOnly, SameSite=Strict session cookie', async () => {
    const first = await page.goto(`${server.url}/`);
    expect(first?.status()).toBe(401);
    await page.fill('input[name=token]', 'wrong-token');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('main')).toContain('Not accepted.');
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('#failed-transfers');
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'paysync_ops', httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.value).not.toContain(TOKEN);
  }, 30_000);

  it('Today lists the failed transfers, the verdicts and the breaks as in the database', async () => {
    const failed = await fixture.database.db
      .selectFrom('transfers')
      .select(['id', 'description'])
      .where('status', '=', 'failed')
      .execute();
    expect(failed.map((t) => t.id)).toEqual([day.failedTransferId]);
    const rows = page.locator('#failed-transfers tr[data-id]');
    await expect.poll(() => rows.count()).toBe(failed.length);
    const row = page.locator(`#failed-transfers tr[data-id="${day.failedTransferId}"]`);
    // The script in the description shows as text; nothing of it became markup.
    expect(await row.locator('td').nth(1).textContent()).toBe(HOSTILE_DESCRIPTION);
    expect(await row.locator('script, b').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    // Money in its human form, per the currency's exponent (XOF has none).
    expect(await row.textContent()).toContain('150,000 XOF');

    const verdicts = await fixture.database.db
      .selectFrom('daily_verdicts')
      .select(['day', 'verdict'])
      .execute();
    for (const stored of verdicts) {
      expect(await page.locator(`#verdicts tr[data-day="${stored.day}"]`).textContent()).toContain(
        stored.verdict,
      );
    }
    expect(verdicts.map((v) => v.day).sort()).toEqual([day.dayBefore, day.yesterday]);
    expect(await page.locator('#breaks').textContent()).toContain(day.okTransferId);
    expect(await page.locator(`#alerts tr[data-id="${alertId}"]`).textContent()).toContain(
      `Transfer ${day.failedTransferId} failed`,
    );
  });

  it('acks an open alert by clicking on Today (CSRF-protected), and the database shows it acked', async () => {
    const stateOf = async () =>
      fixture.database.db
        .selectFrom('alerts')
        .select(['status', 'acked_at'])
        .where('id', '=', alertId)
        .executeTakeFirstOrThrow();
    const refused = await page.request.post(`${server.url}/actions/alerts/${alertId}/ack`, {
      form: { csrf: 'forged' },
    });
    expect(refused.status()).toBe(403);
    expect(await stateOf()).toMatchObject({ status: 'open', acked_at: null });

    await page.goto(`${server.url}/`);
    await page.click(`#alerts tr[data-id="${alertId}"] button`);
    await page.waitForSelector('#failed-transfers');
    expect(await stateOf()).toMatchObject({ status: 'acked', acked_at: expect.any(String) });
    const row = page.locator(`#alerts tr[data-id="${alertId}"]`);
    expect(await row.locator('td').nth(1).textContent()).toBe('acked');
    expect(await row.locator('button').count()).toBe(0);
  });

  it('resolves a break by clicking (CSRF-protected), and the database shows it', async () => {
    const refused = await page.request.post(
      `${server.url}/actions/discrepancies/${day.discrepancyId}/resolve`,
      { form: { csrf: 'forged' } },
    );
    expect(refused.status()).toBe(403);
    const still = await fixture.database.db
      .selectFrom('discrepancies')
      .select('resolved_at')
      .where('id', '=', day.discrepancyId)
      .executeTakeFirstOrThrow();
    expect(still.resolved_at).toBeNull();

    await page.click(`#breaks tr[data-id="${day.discrepancyId}"] button`);
    await page.waitForSelector('#failed-transfers');
    const resolved = await fixture.database.db
      .selectFrom('discrepancies')
      .select('resolved_at')
      .where('id', '=', day.discrepancyId)
      .executeTakeFirstOrThrow();
    expect(resolved.resolved_at).not.toBeNull();
    expect(await page.locator(`#breaks tr[data-id="${day.discrepancyId}"]`).count()).toBe(0);
  });

  it('the item page shows the show view, and the receipt frame cannot run its script', async () => {
    await page.goto(`${server.url}/`);
    await page.click(`#failed-transfers a[href="/items/${day.failedTransferId}"]`);
    await page.waitForSelector('#record');
    const record = await page.locator('#record').textContent();
    expect(record).toContain('failed');
    // The recipient's number is masked as in alerts: network prefix and last two digits.
    expect(record).toContain('+22177•••••01');
    expect(record).not.toContain('770009901');
    expect(await page.locator('#history tr').count()).toBeGreaterThan(1);
    const title = await page.title();
    const frameResponse = await page.request.get(`${server.url}/receipts/${day.failedTransferId}`);
    expect(frameResponse.headers()['content-security-policy']).toBe(RECEIPT_CSP);
    const frame = page.frameLocator('#receipt iframe');
    await expect.poll(() => frame.locator('h1').textContent()).toBe('Receipt');
    // The frame's own script did not run, and the parent page is untouched.
    expect(await frame.locator('body').getAttribute('data-ran')).toBeNull();
    expect(await page.title()).toBe(title);
    expect(await page.locator('#record').count()).toBe(1);
    await page.locator('#receipt').scrollIntoViewIfNeeded();
  });

  it('replays the inbox event of the item by clicking, and the database shows it reopened', async () => {
    const status = async () =>
      (
        await fixture.database.db
          .selectFrom('webhook_inbox')
          .select('status')
          .where('id', '=', day.failedInboxId)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await status()).toBe('processed');
    await page.goto(`${server.url}/items/${day.failedTransferId}`);
    await page.click(`#inbox tr[data-inbox-id="${day.failedInboxId}"] button`);
    await page.waitForSelector('#record');
    expect(await status()).toBe('received');
    const job = await fixture.daemon!.queues.ingest.getJob(ingestJobId(day.failedInboxId));
    expect(await job?.getState()).toBe('waiting');
  });

  it('Balances compares with the ledger and draws one series per account', async () => {
    await page.goto(`${server.url}/balances`);
    const accounts = await fixture.database.db
      .selectFrom('balance_snapshots')
      .select(['account_type', 'currency'])
      .distinct()
      .execute();
    expect(accounts.length).toBe(2);
    const chart = page.locator('#balance-chart[data-series-count]');
    await chart.waitFor();
    expect(await chart.getAttribute('data-series-count')).toBe(String(accounts.length));
    expect(await page.locator('#balance-chart canvas').count()).toBe(1);
    // uPlot's legend: the x series plus one per account.
    const legend = await page.locator('#balance-chart .u-legend .u-series').allTextContents();
    for (const { account_type, currency } of accounts) {
      expect(legend.some((text) => text.includes(`${account_type} ${currency}`))).toBe(true);
    }
    expect(await page.locator('#comparison tr').count()).toBe(accounts.length + 1);
    // The service's balance in its human form, as the snapshot stored it in minor units.
    const transfer = await fixture.database.db
      .selectFrom('balance_snapshots')
      .select(['amount'])
      .where('account_type', '=', 'transfer')
      .orderBy('as_of', 'desc')
      .executeTakeFirstOrThrow();
    const transferRow = page.locator('#comparison tr', { hasText: 'transfer' });
    expect(await transferRow.locator('td').nth(2).textContent()).toBe(
      `${Number(transfer.amount).toLocaleString('en-US')} XOF`,
    );
  });

  it('Pipeline shows the queues, webhooks and runs; Exports list the closed period and the manifest, and download', async () => {
    await page.goto(`${server.url}/pipeline`);
    // A header and the five queues, receipts apart from the follow-ups.
    expect(await page.locator('#queues tr').count()).toBe(6);
    expect(await page.locator('#queues').textContent()).toContain('receipts');
    expect(await page.locator('#runs').textContent()).not.toContain('Not available');
    await page.goto(`${server.url}/exports`);
    const closedRows = await page.locator('#closed-periods tr').allTextContents();
    expect(closedRows.slice(1).map((row) => row.includes(closedPeriod))).toEqual([true, true]);
    expect(closedRows.join(' ')).toContain('dashboard test: a quiet month');
    const dailyRows = page.locator('#exports-list tr');
    expect(await dailyRows.count()).toBe(manifestDay.files.length + 2);
    for (const file of manifestDay.files) {
      const row = page
        .locator('#exports-list tr', { hasText: `paysync-${manifestDay.day}.` })
        .filter({
          hasText: file.format,
        });
      expect(await row.locator('td').nth(2).textContent()).toBe(String(file.rows));
      expect(await row.locator('code').getAttribute('title')).toBe(file.sha256);
    }
    const csv = manifestDay.files.find((f) => f.format === 'csv')!;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click(`#exports-list a:text("paysync-${manifestDay.day}.csv")`),
    ]);
    expect(download.suggestedFilename()).toBe(`paysync-${manifestDay.day}.csv`);
    const bytes = await readFile((await download.path())!);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(csv.sha256);
    // Readable on a phone: the page fits the screen's width (wide tables scroll inside
    // their panel).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/`);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await page.setViewportSize({ width: 1200, height: 900 });
    const board = await page.goto(`${server.url}/admin/queues`);
    expect(board?.status()).toBe(200);
    // bull-board's own page, from its package: it lists our five queues.
    await expect.poll(() => page.textContent('body'), { timeout: 15_000 }).toContain('ingest');
    await page.click('text=follow-up');
    await expect.poll(() => page.textContent('body'), { timeout: 15_000 }).not.toContain('Loading');
  });
  it('Endpoints shows each endpoint health and recent deliveries, the answer as text, and disables by clicking (CSRF-protected)', async () => {
    const db = fixture.database.db;
    const { endpoint } = await addEndpoint(
      {
        db,
        now: new Date(),
        environment: 'sandbox',
        relay: { allowHttp: false, allowedHosts: [] },
      },
      { url: 'https://shop.example.com/paysync', events: ['transfer.*'], description: 'shop' },
    );
    const hostile = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">';
    const emitted = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const event = await seedRelayEvent(db, {
      type: 'transfer.failed',
      subject: `transfer:${day.failedTransferId}`,
      createdAt: emitted,
    });
    await seedDelivery(db, {
      endpointId: endpoint.id,
      event,
      state: 'pending',
      at: new Date(Date.now() - 60_000).toISOString(),
      attempt: { outcome: 'failed', statusCode: 500, excerpt: hostile, durationMs: 87 },
    });
    const failingSince = new Date(Date.now() - 3_600_000).toISOString();
    await db
      .updateTable('relay_endpoints')
      .set({ failing_since: failingSince })
      .where('endpoint_id', '=', endpoint.id)
      .execute();

    await page.goto(`${server.url}/`);
    await page.click('header a[href="/endpoints"]');
    const row = page.locator(`#endpoints tr[data-endpoint="${endpoint.id}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[0]).toContain('https://shop.example.com/paysync');
    expect(cells[2]).toContain('failing');
    expect(cells[3]).toBe(failingSince);
    expect(cells[5]).toBe('1');
    expect(cells[6]).toBe('2 h');
    const delivery = page.locator(
      `section.deliveries[data-endpoint="${endpoint.id}"] tr[data-event="${event.eventId}"]`,
    );
    const deliveryCells = await delivery.locator('td').allTextContents();
    expect(deliveryCells.slice(1, 5)).toEqual(['transfer.failed', 'failed', '500', '87']);
    // The consumer's answer is text: nothing of it became markup, nothing ran.
    expect(deliveryCells[5]).toBe(hostile);
    expect(await delivery.locator('script, img').count()).toBe(0);
    expect(await page.title()).toBe('Endpoints · paysync');

    const statusOf = async () =>
      (
        await db
          .selectFrom('relay_endpoints')
          .select('status')
          .where('endpoint_id', '=', endpoint.id)
          .executeTakeFirstOrThrow()
      ).status;
    const refused = await page.request.post(
      `${server.url}/actions/endpoints/${endpoint.id}/disable`,
      { form: { csrf: 'forged' } },
    );
    expect(refused.status()).toBe(403);
    expect(await statusOf()).toBe('enabled');
    await row.locator('button').click();
    await page.waitForSelector(`#endpoints tr[data-endpoint="${endpoint.id}"]`);
    expect(await statusOf()).toBe('disabled');
    expect(
      await page.locator(`#endpoints tr[data-endpoint="${endpoint.id}"] td`).nth(2).textContent(),
    ).toContain('disabled (operator)');
    await page.locator(`#endpoints tr[data-endpoint="${endpoint.id}"] button`).click();
    await page.waitForSelector(`#endpoints tr[data-endpoint="${endpoint.id}"]`);
    expect(await statusOf()).toBe('enabled');
  });

  it('keeps long values inside their card on every page, at desktop and phone widths, with the full text on hover', async () => {
    // One word too long for any column (nowhere to break), after ordinary words.
    const unbroken = `REF${'0123456789'.repeat(30)}`;
    const description = `Payout to the regional distributor for the northern stores, ${unbroken}`;
    const longId = await addFailedTransfer(
      { db: fixture.database.db, sim: fixture.sim, queues: daemonQueues },
      description,
    );
    const alertTitle = `Transfer ${longId} failed: ${unbroken}`;
    const runtime = { db: fixture.database.db, alerts: alertRuntime };
    await raiseAlert(runtime, { kind: 'transfer_failed', subject: longId, title: alertTitle });
    const reason = `forced for the overflow test: ${unbroken}`;
    await closePeriod({
      db: fixture.database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      dir: exportsDir,
      period: `${Number(day.yesterday.slice(0, 4)) - 2}-${day.yesterday.slice(5, 7)}`,
      formats: ['csv'],
      force: true,
      reason,
      by: 'test',
      now: new Date(),
    });
    const pages = ['/', `/items/${longId}`, '/balances', '/pipeline', '/exports', '/endpoints'];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of pages) {
        await page.goto(`${server.url}${path}`);
        // Every table fits its card: nothing to scroll sideways, the last column in view.
        const overflowing = await page.$$eval('main table', (tables) =>
          tables
            .map((table) => {
              const card = table.closest('section')!;
              const lastHeader = table.querySelector('tr')!.lastElementChild!;
              const cardRight = card.getBoundingClientRect().right;
              const fits =
                card.scrollWidth <= card.clientWidth &&
                lastHeader.getBoundingClientRect().right <= cardRight &&
                table.getBoundingClientRect().right <= cardRight;
              return fits ? '' : `#${card.id} (${card.scrollWidth} > ${card.clientWidth})`;
            })
            .filter(Boolean),
        );
        expect(overflowing, `${path} at ${width}px`).toEqual([]);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
          `${path} at ${width}px`,
        ).toBeLessThanOrEqual(width);
      }
    }
    // The full text on hover, wherever it was wrapped or cut.
    await page.goto(`${server.url}/`);
    const row = page.locator(`#failed-transfers tr[data-id="${longId}"]`);
    expect(await row.locator('td').nth(1).getAttribute('title')).toBe(description);
    expect(await row.locator('td').nth(3).getAttribute('title')).toBe(
      'The recipient account does not exist',
    );
    const alertRow = page.locator('#alerts tr', { hasText: longId });
    expect(await alertRow.locator('td').first().getAttribute('title')).toBe(alertTitle);
    await page.goto(`${server.url}/items/${longId}`);
    const descriptionRow = page.locator('#record tr', {
      has: page.locator('th:text-is("description")'),
    });
    expect(await descriptionRow.locator('td').getAttribute('title')).toBe(description);
    await page.goto(`${server.url}/exports`);
    const forced = page.locator('#closed-periods td', { hasText: 'forced for the overflow test' });
    expect(await forced.getAttribute('title')).toBe(`yes: ${reason}`);
    await page.setViewportSize({ width: 1200, height: 900 });
  }, 60_000);

  it('leaves the tracked screenshots alone (only `npm run docs:screenshots` writes them)', () => {
    expect(screenshotFingerprints()).toEqual(screenshotsBefore);
  });
});
