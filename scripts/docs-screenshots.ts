/**
 * `npm run docs:screenshots`: rewrites `docs/screenshots/*.png` (listed in docs/screenshots.md)
 * from realistic books. It is the only thing that writes them; `npm test` never does.
 *
 * It runs what `paysync demo` runs, twice over: two shops, each with its own simulator and its
 * own SQLite books, kept by in-process daemons from a tenants file, so the dashboard has a
 * tenant switcher. The demo's traffic (payments, transfers, some failing on purpose, refunds)
 * runs for {@link TRAFFIC_MS}: yesterday's business (the simulators' clocks from 07:30 to 21:00),
 * then today's. The receiver and the workers book it; then, through the ordinary doors: a
 * backfill of yesterday (`paysync backfill`, so the day is covered), the scheduler (its
 * end-of-day snapshot and the verdict it stores), an expectations file (`paysync expect
 * import`), relay endpoints (`paysync endpoints add`, one of them down), a top-up on the service
 * that the books do not know (the next scheduled snapshot records the balance drift and raises
 * its alert), and yesterday's export. Then it signs in with Chromium and photographs every page
 * of the dashboard (the list is {@link SHOTS}: a new page of the route table without a picture
 * fails test/ops/docs-screenshots.test.ts), the tenant switcher and the phone width.
 *
 * Needs Redis at PAYSYNC_REDIS_URL (default redis://127.0.0.1:6379) and Chromium at
 * PAYSYNC_CHROMIUM (default /usr/bin/chromium). It takes about a minute and a half.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { chromium, type Page } from 'playwright-core';
import { takeBalanceSnapshot } from '../src/balances/index.ts';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../src/daemon/index.ts';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import { createDemoTraffic, DEMO_PACE, type DemoTraffic } from '../src/demo/index.ts';
import { runDailyExport } from '../src/exports/index.ts';
import { latestFailedTransferId } from '../src/ledger/index.ts';
import { systemClock } from '../src/lifecycle/index.ts';
import { deletePrefixedKeys } from '../src/queues/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
  type SimItemView,
} from '../src/sim/index.ts';
import { loadTenants } from '../src/tenants/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../src/upstream/index.ts';

/** One picture: which route of the dashboard it shows, and how. */
interface Shot {
  /** `docs/screenshots/<file>.png` */
  readonly file: string;
  /** The dashboard's route as the route table names it (`/items/:id`), or `/login`. */
  readonly route: string;
  readonly tenant?: 'first' | 'second';
  readonly viewport?: 'desktop' | 'phone';
  /** Only the top of the page, this many pixels (the rest of the page is in other pictures). */
  readonly top?: number;
}

/**
 * Every page a user can open, in the nav's order, then the item page, the login form, the
 * tenant switcher and the phone width. test/ops/docs-screenshots.test.ts checks that the routes
 * cover the dashboard's route table and its nav.
 */
const SHOTS: readonly Shot[] = [
  { file: 'today', route: '/' },
  { file: 'balances', route: '/balances' },
  { file: 'pipeline', route: '/pipeline' },
  { file: 'exports', route: '/exports' },
  { file: 'endpoints', route: '/endpoints' },
  { file: 'expectations', route: '/expectations' },
  { file: 'queues', route: '/admin/queues' },
  { file: 'item', route: '/items/:id' },
  { file: 'login', route: '/login' },
  {
    file: 'tenants',
    route: '/',
    tenant: 'second',
    top: 420,
  },
  { file: 'today-phone', route: '/', viewport: 'phone' },
  {
    file: 'item-phone',
    route: '/items/:id',
    viewport: 'phone',
  },
];

const ROOT = resolve(import.meta.dirname, '..');
const OUT = resolve(ROOT, 'docs/screenshots');
const REDIS_URL = process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHROMIUM = process.env.PAYSYNC_CHROMIUM ?? '/usr/bin/chromium';
/** How long the demo's traffic runs. */
/** Real time of yesterday's business (07:30 to 21:00 of the simulator), then of today's. */
const YESTERDAY_MS = 20_000;
const TODAY_MS = 30_000;
const TRAFFIC_MS = YESTERDAY_MS + TODAY_MS;
/** Where yesterday's business starts and stops, in hours after the books' midnight. */
const OPENING_HOUR = 7.5;
const CLOSING_HOUR = 21;
/** Pictures taller than this are cut: the top of a long page says what it is. */
const MAX_HEIGHT = 1500;
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
const TENANTS = [
  { name: 'shop-dakar', merchantId: 'mch_7c41d2a9e05b', seed: 4101 },
  { name: 'shop-abidjan', merchantId: 'mch_2f98b61c3d70', seed: 4102 },
] as const;

const logger = pino({ level: process.env.PAYSYNC_LOG_LEVEL ?? 'error' });
const say = (line: string) => console.log(`docs:screenshots: ${line}`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A small seeded generator, so two runs make the same mix of business. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Shop {
  readonly name: string;
  readonly sim: RunningSimulator;
  readonly client: UpstreamClient;
  readonly database: string;
  traffic?: DemoTraffic;
}

/** The books' day in Africa/Dakar (UTC all year), `YYYY-MM-DD`. */
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** A relay consumer on loopback: the shop's back office, answering 204 to every event. */
async function startConsumer(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('consumer: no port');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

/** A port nothing listens on: the staging back office, down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * `paysync <args>` on one tenant's books, as an operator would run it. Not spawnSync: the
 * simulators it may call live in this process, and must go on answering.
 */
async function paysync(
  env: Record<string, string>,
  tenant: string,
  args: readonly string[],
): Promise<string> {
  const child = spawn(process.execPath, [resolve(ROOT, 'bin/paysync.js'), ...args], {
    cwd: env.PAYSYNC_WORK_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      PAYSYNC_TENANT: tenant,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', done);
  });
  if (status !== 0) {
    throw new Error(`paysync ${args.join(' ')} (${tenant}) exited ${status}: ${stderr}`);
  }
  return stdout;
}

/**
 * The shop's orders and payouts for today: transfers it meant to make (most paid as expected,
 * one for a different amount, one that failed), payments it still awaits, and one order that
 * should have been paid an hour ago.
 */
function expectationsCsv(sim: RunningSimulator, now: Date): string {
  const items = sim.control.groundTruth().items;
  const transfers = items.filter((item) => item.kind === 'transfer');
  const paid = transfers.filter((item) => item.status === 'successful').slice(0, 6);
  const failed = transfers.find((item) => item.status === 'failed');
  const today = dayOf(now);
  const tomorrow = dayOf(new Date(now.getTime() + 86_400_000));
  const amount = (item: SimItemView) => Number(item.resource.amount);
  const rows = [
    'expectation_id,direction,currency,amount,amount_min,amount_max,window_from,window_to,reference,item_id,item_kinds,metadata.supplier,metadata.run',
  ];
  paid.forEach((item, index) => {
    // The fourth payout was agreed at 5,000 XOF more than was sent: a wrong-amount break.
    const expected = index === 3 ? amount(item) + 5000 : amount(item);
    rows.push(
      `payout-${today}-${String(index + 1).padStart(3, '0')},out,XOF,${expected},,,${today},${today},,${item.id},transfer,S-${110 + index},morning`,
    );
  });
  if (failed) {
    rows.push(
      `payout-${today}-007,out,XOF,${amount(failed)},,,${today},${today},,${failed.id},transfer,S-117,morning`,
    );
  }
  const orders = [
    ['order-20418', 125000, tomorrow],
    ['order-20419', 48500, tomorrow],
    ['order-20420', 310000, tomorrow],
  ] as const;
  for (const [id, sum, until] of orders) {
    rows.push(`${id},in,XOF,${sum},,,${today},${until},${id},,payment_intent,,web`);
  }
  const lateFrom = new Date(now.getTime() - 3 * 3600_000).toISOString();
  const lateTo = new Date(now.getTime() - 3600_000).toISOString();
  rows.push(`order-20397,in,XOF,75000,,,${lateFrom},${lateTo},order-20397,,payment_intent,,shop`);
  return `${rows.join('\n')}\n`;
}

/** Waits for `check` to hold, up to `ms`; says so when it does not. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(500);
  }
  say(`gave up waiting for ${what} after ${ms / 1000} s; the pictures go on without it`);
}

async function buildBooks(dir: string): Promise<{
  shops: Shop[];
  daemon: RunningTenantsDaemon;
  scheduler: RunningTenantsDaemon;
  env: Record<string, string>;
  prefix: string;
  consumer: Server;
}> {
  const prefix = `paysync-shots-${randomBytes(4).toString('hex')}`;
  const adminToken = randomBytes(24).toString('base64url');
  // The shops opened yesterday morning: yesterday is a closed day with a verdict on Today.
  const midnight = Date.parse(`${dayOf(new Date())}T00:00:00Z`);
  const opening = midnight - 86_400_000 + OPENING_HOUR * 3600_000;
  const env: Record<string, string> = {
    PAYSYNC_WORK_DIR: dir,
    PAYSYNC_TENANTS_FILE: join(dir, 'tenants.json'),
    PAYSYNC_REDIS_URL: REDIS_URL,
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_ADMIN_TOKEN: adminToken,
    PAYSYNC_LOG_LEVEL: logger.level,
    PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
    PAYSYNC_RECEIPTS_DIR: join(dir, 'receipts'),
    PAYSYNC_BOOKS_TIMEZONE: 'Africa/Dakar',
    // The demo's pace: minutes of a real deployment's schedule in seconds.
    ...DEMO_PACE,
    PAYSYNC_SHUTDOWN_TIMEOUT_MS: '5000',
    // The back office of the pictures listens on loopback, over http.
    PAYSYNC_RELAY_ALLOW_HTTP: 'true',
    PAYSYNC_RELAY_ALLOWED_HOSTS: '127.0.0.1',
  };
  const shops: Shop[] = [];
  const entries = [];
  for (const [index, tenant] of TENANTS.entries()) {
    const secret = generateWebhookSecret();
    const sim = await startSimulator({
      port: 0,
      seed: tenant.seed,
      merchantId: tenant.merchantId,
      webhookSecret: secret,
      startAt: new Date(opening),
      webhookRetryDelaysMs: [500, 1000, 2000, 5000, 10_000],
      initialBalances: [
        { accountType: 'transfer', currency: 'XOF', amount: 48_000_000 },
        { accountType: 'transfer-irt', currency: 'XOF', amount: 6_500_000 },
        { accountType: 'collection', currency: 'XOF', amount: 0 },
        { accountType: 'cross-border', currency: 'XOF', amount: 0 },
      ],
      logger: logger.child({ role: 'sim', tenant: tenant.name }),
    });
    const database = join(dir, `${tenant.name}.db`);
    const migration = createDatabase(`sqlite:${database}`);
    try {
      await migrateToLatest(migration.db);
    } finally {
      await migration.close();
    }
    env[`SHOP_${index + 1}_API_KEY`] = sim.credentials.apiKey;
    env[`SHOP_${index + 1}_WEBHOOK_SECRET`] = secret;
    entries.push({
      name: tenant.name,
      merchant_id: sim.credentials.merchantId,
      environment: 'sandbox',
      service_url: sim.url,
      api_key: { env: `SHOP_${index + 1}_API_KEY` },
      webhook_secret: { env: `SHOP_${index + 1}_WEBHOOK_SECRET` },
      database: { sqlite: database },
    });
    const client = createUpstreamClient({
      baseUrl: sim.url,
      ...sim.credentials,
      environment: 'sandbox',
      rps: 1000,
      maxRetries: 2,
      now: systemClock,
    });
    shops.push({ name: tenant.name, sim, client, database });
  }
  writeFileSync(env.PAYSYNC_TENANTS_FILE!, `${JSON.stringify({ tenants: entries }, null, 2)}\n`);
  const loaded = loadTenants(env, dir);

  // The simulators start funded: a first snapshot, before any traffic, books that as opening
  // balances (as the demo does), so the scheduled ones compare like for like. It is yesterday
  // morning's, so the scheduled balance task takes yesterday's end-of-day snapshot and the
  // verdict task judges yesterday.
  for (const [index, shop] of shops.entries()) {
    shop.sim.control.advance(60_000);
    const books = createDatabase(`sqlite:${shop.database}`);
    try {
      await takeBalanceSnapshot(
        {
          db: books.db,
          upstream: shop.client,
          logger,
          environment: loaded.tenants[index]!.config.environment,
          now: systemClock,
        },
        { at: shop.sim.control.now() },
      );
    } finally {
      await books.close();
    }
  }
  // The receiver and the workers now, as `paysync serve` and `paysync work`; the scheduler
  // (`paysync schedule`) once the simulators' clocks are back to today, so its end-of-day
  // snapshot of yesterday asks the service for the balances yesterday ended with.
  const tenants = loaded.tenants.map(({ name, config }) => ({ name, config }));
  const daemon = await startTenantsDaemon({
    tenants,
    logger,
    roles: ['receiver', 'workers'],
    port: 0,
    host: '127.0.0.1',
    opsHost: '127.0.0.1',
  });
  const webhookPath = loaded.tenants[0]!.config.webhook.path;
  for (const [index, shop] of shops.entries()) {
    await shop.client.createWebhook({
      url: `${daemon.front!.url}${webhookPath}/${shop.name}`,
      description: `paysync (${shop.name})`,
    });
    shop.traffic = createDemoTraffic({
      sim: shop.sim,
      client: shop.client,
      logger,
      // The second shop is quieter: a tick of its own every second.
      tickMs: index === 0 ? 500 : 1000,
      failOneIn: index === 0 ? 8 : 11,
      random: seeded(TENANTS[index]!.seed),
    });
    shop.traffic.start();
  }

  // The shop's back office takes relay events; its staging copy is down.
  const consumer = await startConsumer();
  const [first, second] = shops as [Shop, Shop];
  await paysync(env, first.name, [
    'endpoints',
    'add',
    '--url',
    `${consumer.url}/paysync/events`,
    '--events',
    'transfer.*,payment_intent.*,refund.*,day.verdict,balance.*',
    '--description',
    'Back office: order and payout status',
  ]);
  await paysync(env, first.name, [
    'endpoints',
    'add',
    '--url',
    `http://127.0.0.1:${await closedPort()}/hooks/paysync`,
    '--events',
    'transfer.*',
    '--description',
    'Staging back office',
  ]);
  await paysync(env, second.name, [
    'endpoints',
    'add',
    '--url',
    `${consumer.url}/abidjan/events`,
    '--events',
    'transfer.*,day.verdict',
    '--description',
    'Back office (Abidjan)',
  ]);

  say(`two shops trading for ${TRAFFIC_MS / 1000} s: yesterday's business, then today's`);
  // Yesterday: the simulators' clocks run from the opening to the evening in YESTERDAY_MS.
  const step = ((CLOSING_HOUR - OPENING_HOUR) * 3600_000 * 500) / YESTERDAY_MS;
  const yesterday = setInterval(() => {
    for (const shop of shops) shop.sim.control.advance(step);
  }, 500);
  await sleep(YESTERDAY_MS);
  clearInterval(yesterday);
  // Overnight: up to ten minutes before now, as the demo's clock (it never dates anything ahead).
  for (const shop of shops) {
    shop.sim.control.advance(Date.now() - 10 * 60_000 - Date.parse(shop.sim.control.now()));
  }
  await sleep(TODAY_MS);
  for (const shop of shops) await shop.traffic!.stop();
  for (const shop of shops) await shop.sim.control.webhooksIdle();
  await sleep(3000);

  // No sweep ran yesterday: a backfill of the day vouches for it (what the report asks for).
  const today = dayOf(new Date());
  const yesterdayDay = dayOf(new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000));
  for (const shop of shops) {
    await paysync(env, shop.name, [
      'backfill',
      '--from',
      `${yesterdayDay}T00:00:00Z`,
      '--to',
      `${today}T00:00:00Z`,
    ]);
  }
  const scheduler = await startTenantsDaemon({ tenants, logger, roles: ['scheduler'] });

  // Expectations: loaded once the morning's payouts are booked, through `paysync expect import`.
  for (const shop of shops) {
    const file = join(dir, `${shop.name}-expectations.csv`);
    writeFileSync(file, expectationsCsv(shop.sim, new Date()));
    await paysync(env, shop.name, ['expect', 'import', file]);
  }

  // The scheduler's first runs: yesterday's end-of-day snapshot, then its verdict.
  for (const shop of shops) {
    const books = daemon.tenants.get(shop.name)!.db;
    await until(`${shop.name}'s verdict of yesterday`, 45_000, async () => {
      const row = await books
        .selectFrom('daily_verdicts')
        .select('verdict')
        .where('day', '=', yesterdayDay)
        .executeTakeFirst();
      return row !== undefined;
    });
  }
  // Someone tops up the Dakar payout account at the bank counter: the service holds money the
  // books have no entry for, and the next scheduled snapshot says so (a balance drift).
  first.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 2_500_000 });
  const dakar = daemon.tenants.get(first.name)!.db;
  await until('the balance drift', 30_000, async () => {
    const row = await dakar
      .selectFrom('discrepancies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'balance_drift')
      .where('resolved_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0) > 0;
  });

  // Yesterday's export, as the scheduled export task writes it once the day is judged.
  for (const [index, shop] of shops.entries()) {
    const tenant = daemon.tenants.get(shop.name)!;
    const config = loaded.tenants[index]!.config;
    await runDailyExport({
      db: tenant.db,
      environment: config.environment,
      timeZone: config.books.timeZone,
      dir: config.exports.dir,
      now: new Date(),
      formats: ['csv', 'beancount'],
      day: yesterdayDay,
    });
  }
  return { shops, daemon, scheduler, env, prefix, consumer: consumer.server };
}

/** A failed transfer of the shop's books: the item page shows its story. */
async function failedTransfer(daemon: RunningTenantsDaemon, tenant: string): Promise<string> {
  const id = await latestFailedTransferId(daemon.tenants.get(tenant)!.db);
  if (!id) throw new Error(`no failed transfer in ${tenant}'s books`);
  return id;
}

/** Loads a page and waits until it is drawn: the network quiet, the chart or the board painted. */
async function open(page: Page, url: string, route: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle' });
  if (route === '/balances')
    await page.waitForSelector('canvas', { timeout: 10_000 }).catch(() => undefined);
  if (route === '/admin/queues')
    await page.waitForSelector('text=/jobs?/i', { timeout: 10_000 }).catch(() => undefined);
  if (route === '/items/:id') await page.waitForLoadState('load');
  await sleep(300);
}

async function photograph(page: Page, shot: Shot): Promise<void> {
  const viewport = VIEWPORTS[shot.viewport ?? 'desktop'];
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  const path = join(OUT, `${shot.file}.png`);
  await page.screenshot({
    path,
    fullPage: true,
    animations: 'disabled',
    caret: 'hide',
    clip: { x: 0, y: 0, width: viewport.width, height: Math.min(height, shot.top ?? MAX_HEIGHT) },
  });
}

async function takePictures(
  daemon: RunningTenantsDaemon,
  shops: readonly Shop[],
  token: string,
): Promise<void> {
  const base = daemon.opsServer!.url;
  const itemIds = {
    first: await failedTransfer(daemon, shops[0]!.name),
    second: await failedTransfer(daemon, shops[1]!.name),
  };
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const contexts = {
      desktop: await browser.newContext({ viewport: VIEWPORTS.desktop, deviceScaleFactor: 1 }),
      phone: await browser.newContext({
        viewport: VIEWPORTS.phone,
        deviceScaleFactor: 1,
        isMobile: true,
        hasTouch: true,
      }),
    };
    for (const [kind, context] of Object.entries(contexts)) {
      const page = await context.newPage();
      await page.goto(`${base}/login`, { waitUntil: 'networkidle' });
      const login = SHOTS.find(
        (shot) => shot.route === '/login' && (shot.viewport ?? 'desktop') === kind,
      );
      if (login) {
        await photograph(page, login);
        say(`${login.file}.png`);
      }
      await page.fill('input[name="token"]', token);
      await Promise.all([
        page.waitForURL(/\/tenants\//),
        page.click('button[type="submit"], form[action="/login"] button'),
      ]);
    }
    for (const shot of SHOTS) {
      if (shot.route === '/login') continue;
      const which = shot.tenant ?? 'first';
      const tenant = which === 'first' ? shops[0]! : shops[1]!;
      const path = shot.route.replace(':id', itemIds[which]);
      const page = contexts[shot.viewport ?? 'desktop'].pages()[0]!;
      await open(page, `${base}/tenants/${tenant.name}${path}`, shot.route);
      if (shot.file === 'tenants') await page.hover(`nav.tenants a[href*="${shops[0]!.name}"]`);
      await photograph(page, shot);
      say(`${shot.file}.png`);
    }
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'paysync-shots-'));
  const built = await buildBooks(dir);
  try {
    // Pictures no longer made go: a page that went away must not keep its picture.
    const made = new Set(SHOTS.map((shot) => `${shot.file}.png`));
    for (const name of readdirSync(OUT)) {
      if (name.endsWith('.png') && !made.has(name)) rmSync(join(OUT, name));
    }
    await takePictures(built.daemon, built.shops, built.env.PAYSYNC_ADMIN_TOKEN!);
  } finally {
    const failures = [...(await built.scheduler.stop()), ...(await built.daemon.stop())];
    for (const failure of failures) say(`${failure.name} did not stop cleanly`);
    for (const shop of built.shops) await shop.sim.stop();
    built.consumer.close();
    await deletePrefixedKeys(REDIS_URL, built.prefix).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  const bytes = SHOTS.reduce((sum, shot) => sum + statSync(join(OUT, `${shot.file}.png`)).size, 0);
  say(
    `${SHOTS.length} pictures, ${Math.round(bytes / 1024)} KiB, in ${Math.round((Date.now() - started) / 1000)} s`,
  );
}

await main().catch((error: unknown) => {
  console.error('docs:screenshots: failed:', error);
  process.exit(1);
});
