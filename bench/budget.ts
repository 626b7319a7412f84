/**
 * Issue 37's proof: how well the daemon spends the service's request budget. For each R of
 * `--rps` (default 10,20,50), `paysync sim --rps R` (a token bucket on the operations that
 * document 429) and one `paysync start` with `PAYSYNC_UPSTREAM_RPS=R` run as child processes on
 * a fresh database (`--config sqlite`, the default: a new file; `--config postgres`: a new schema
 * in `PAYSYNC_BENCH_POSTGRES_URL`, default the test database) and the local Redis. Every mode
 * starts a stack of its own. `PAYSYNC_BENCH_DAEMON_LOG=<file>` appends the daemon's log lines
 * there (with `PAYSYNC_LOG_LEVEL=debug`, each window read's plan and outcome).
 *
 * Modes (all by default; `--only burst|half|steady`, or a comma-separated list):
 * - burst: N transfers and N payment intents (`--items N`, default 1,000; `--short` 200), 10 %
 *   failing (the sandbox's failing numbers), seeded settled through the simulator's control
 *   surface (`POST /__sim/seed`, which the throttle does not count), so each sends 3 webhooks
 *   (created, pending, final). Reports the time until the books are final (every item at the
 *   simulator's final status in the mirror, every webhook in the inbox and none open, a
 *   `transfer_failed` alert for every failed transfer), the time until every receipt is archived,
 *   upstream requests per item by operation, 429s, and budget use: requests answered (not 429)
 *   per second ÷ R, from the seed call until the last receipt, on average and the share of
 *   seconds at ≥ 75 % of R (issue 37's targets: ≥ 90 % and nine seconds in ten); also the average
 *   on the operations that document 429 only (the simulator's bucket does not count receipts).
 * - half: the same burst with the simulator at R/2 and the budget at R: time until the books are
 *   final, the share of requests answered 429 after the first 10 s, and `paysync audit --truth`
 *   against the simulator (clean or not; a dirty audit fails the bench).
 * - steady: R/2 items a second (half transfers, half intents, settled, 3 webhooks each) for
 *   `--steady-minutes` (default 5; `--short` 1): p50 and p99 from an item's seed call (its final
 *   webhook is emitted then) to the time the ledger recorded its final status
 *   (`status_history.observed_at`; the first poll that saw it, when the ledger records none).
 *
 * Prints progress every 5 s, a table at the end, and appends the figures with the machine and the
 * git commit to docs/performance.md ("Budget (issue 37)"; `--no-write` to skip, `--label TEXT`
 * to annotate the rows). Exits 1 when a run times out (`--timeout-seconds` per run, default
 * 3600) or its books stay unreconciled, naming what is missing.
 *
 * Usage: npm run bench:budget [-- --rps 10,20,50] [--config sqlite|postgres] [--items N | --short]
 *          [--only burst|half|steady] [--steady-minutes M] [--timeout-seconds S] [--no-write]
 *          [--label TEXT]
 */
import { execSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { benchCli } from './bench-cli.ts';
import { RequestMeter, type BudgetUse } from './budget-meter.ts';
import { startBudgetStack, type BenchDialect, type BudgetStack } from './budget-stack.ts';
import { appendPerformanceRow } from './performance-doc.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    rps: { type: 'string', default: '10,20,50' },
    config: { type: 'string', default: 'sqlite' },
    items: { type: 'string' },
    short: { type: 'boolean', default: process.env.PAYSYNC_BENCH_SHORT === '1' },
    only: { type: 'string', default: 'burst,half,steady' },
    'steady-minutes': { type: 'string' },
    'timeout-seconds': { type: 'string', default: '3600' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
  },
});

type Mode = 'burst' | 'half' | 'steady';
const MODES: readonly Mode[] = ['burst', 'half', 'steady'];
const rpsList = values.rps.split(',').map(Number);
const modes = values.only.split(',').map((mode) => mode.trim());
const perKind = Number(values.items ?? (values.short ? 200 : 1000));
const steadyMinutes = Number(values['steady-minutes'] ?? (values.short ? 1 : 5));
const timeoutMs = Number(values['timeout-seconds']) * 1000;
const dialect = values.config as BenchDialect;
function refuse(message: string): never {
  console.error(`bench/budget.ts: ${message}`);
  process.exit(2);
}
if (rpsList.some((r) => !Number.isInteger(r) || r < 2)) {
  refuse('--rps must be whole numbers of at least 2, comma-separated (e.g. 10,20)');
}
if (!modes.every((mode): mode is Mode => (MODES as readonly string[]).includes(mode))) {
  refuse('--only takes burst, half or steady (comma-separated)');
}
if (dialect !== 'sqlite' && dialect !== 'postgres') refuse('--config is sqlite or postgres');
if (!Number.isInteger(perKind) || perKind < 1)
  refuse('--items must be a whole number of at least 1');
if (!(steadyMinutes > 0)) refuse('--steady-minutes must be a positive number');
if (!(timeoutMs > 0)) refuse('--timeout-seconds must be a positive number');

/** Statuses no item leaves once there (the simulator's seeded items end successful or failed). */
const FINAL_STATUSES = ['successful', 'failed', 'canceled', 'expired'];
const SIM_SEED = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

/** A stored time as ms: SQLite gives ISO text, PostgreSQL may give a Date. */
function millis(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  return Number.isFinite(ms) ? ms : undefined;
}

interface RunFigures {
  readonly mode: Mode;
  readonly simRps: number;
  readonly budgetRps: number;
  readonly items: number;
  readonly failedTransfers: number;
  readonly booksFinalMs: number | undefined;
  readonly receiptsMs: number | undefined;
  readonly requestsPerItem: number;
  /** Requests (429s included) by operation, most first. */
  readonly byOperation: readonly [string, number][];
  readonly throttled: number;
  readonly budget: BudgetUse;
  /** What only this mode reports (429 share and audit; latency percentiles). */
  readonly extra: string;
  readonly problem?: string;
}

interface Seeded {
  readonly ids: string[];
  readonly kind: 'transfer' | 'payment_intent';
}

/** A burst's items are created over its last ten seconds (before 2026-11-28 21:15Z: over a day). */
const BURST_CREATED_WITHIN_MS = 10_000;

/**
 * `POST /__sim/seed`: settled items created over the last `createdWithinMs` (0: now), as a
 * payroll or a sale is created in a few seconds; the control surface is not throttled.
 */
async function seed(
  stack: BudgetStack,
  kind: 'transfer' | 'payment_intent',
  count: number,
  createdWithinMs: number,
): Promise<Seeded> {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const response = await fetch(`${stack.simUrl}/__sim/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      kind,
      count,
      settle: true,
      failureRate: 0.1,
      from: new Date(nowMs - createdWithinMs).toISOString(),
      to: now,
    }),
  });
  if (!response.ok) throw new Error(`seed ${kind}: ${response.status} ${await response.text()}`);
  const { ids } = (await response.json()) as { ids: string[] };
  return { ids, kind };
}

/** The simulator's final status of every item it holds, by id. */
async function truthStatuses(
  stack: BudgetStack,
): Promise<Map<string, { kind: string; status: string }>> {
  const statuses = new Map<string, { kind: string; status: string }>();
  for (const kind of ['transfer', 'payment_intent']) {
    const response = await fetch(`${stack.simUrl}/__sim/ground-truth?kind=${kind}`);
    const truth = (await response.json()) as {
      items: { id: string; kind: string; status: string }[];
    };
    for (const item of truth.items) statuses.set(item.id, { kind: item.kind, status: item.status });
  }
  return statuses;
}

interface BooksState {
  /** Mirror status of every transfer and payment intent, by id. */
  readonly mirror: Map<string, string>;
  readonly inboxRows: number;
  readonly inboxOpen: number;
  readonly failedAlerts: Set<string>;
  readonly receipts: number;
}

/** What the books hold now; each run has a database of its own, so every row is the run's. */
async function readBooks(stack: BudgetStack): Promise<BooksState> {
  const db = stack.database.db;
  const mirror = await sql<{ id: string; status: string }>`
    select id, status from transfers union all select id, status from payment_intents`.execute(db);
  const inbox = await sql<{ total: number | string; open: number | string | null }>`
    select count(*) as total,
      sum(case when status in ('received', 'processing') then 1 else 0 end) as open
    from webhook_inbox`.execute(db);
  const alerts = await sql<{ subject: string | null }>`
    select subject from alerts where kind = 'transfer_failed'`.execute(db);
  const receipts = await sql<{ n: number | string }>`
    select count(distinct resource_id) as n from receipts`.execute(db);
  return {
    mirror: new Map(mirror.rows.map((row) => [row.id, row.status])),
    inboxRows: Number(inbox.rows[0]?.total ?? 0),
    inboxOpen: Number(inbox.rows[0]?.open ?? 0),
    failedAlerts: new Set(alerts.rows.map((row) => row.subject ?? '')),
    receipts: Number(receipts.rows[0]?.n ?? 0),
  };
}

/** The latest time the ledger recorded for the books of a burst: statuses, inbox, alerts. */
async function recordedBooksFinal(
  stack: BudgetStack,
): Promise<{ books?: number; receipts?: number }> {
  const row = (
    await sql<{ history: unknown; inbox: unknown; alert: unknown; receipt: unknown }>`select
      (select max(observed_at) from status_history) as history,
      (select max(processed_at) from webhook_inbox) as inbox,
      (select max(created_at) from alerts where kind = 'transfer_failed') as alert,
      (select max(fetched_at) from receipts) as receipt`.execute(stack.database.db)
  ).rows[0];
  const parts = [millis(row?.history), millis(row?.inbox), millis(row?.alert)].filter(
    (ms): ms is number => ms !== undefined,
  );
  return {
    books: parts.length === 0 ? undefined : Math.max(...parts),
    receipts: millis(row?.receipt),
  };
}

/**
 * Whether the simulator has no webhook left to send (none in flight or waiting for a retry) and
 * the inbox holds every event it delivered: a failed item sends 2 webhooks, not 3.
 */
async function webhooksIn(stack: BudgetStack, inboxRows: number): Promise<string | undefined> {
  const memory = (await (await fetch(`${stack.simUrl}/__sim/memory`)).json()) as {
    webhookAttempts: { eventsDelivered: number };
  };
  const flushed = await fetch(`${stack.simUrl}/__sim/webhooks/flush`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ timeoutMs: 200 }),
  });
  const { idle } = (await flushed.json()) as { idle: boolean };
  const missing = memory.webhookAttempts.eventsDelivered - inboxRows;
  if (!idle) return 'the simulator still sending webhooks';
  return missing > 0 ? `${missing} delivered webhooks not in the inbox` : undefined;
}

/** What is still missing from the books of `expected`, in a few words, or undefined when final. */
async function missingFromBooks(
  stack: BudgetStack,
  books: BooksState,
  expected: Map<string, { kind: string; status: string }>,
): Promise<string | undefined> {
  let notFinal = 0;
  let alertsMissing = 0;
  for (const [id, truth] of expected) {
    if (books.mirror.get(id) !== truth.status) notFinal += 1;
    if (truth.kind === 'transfer' && truth.status === 'failed' && !books.failedAlerts.has(id))
      alertsMissing += 1;
  }
  const problems = [
    notFinal > 0 ? `${notFinal} items not at their final status` : '',
    books.inboxOpen > 0 ? `${books.inboxOpen} inbox rows open` : '',
    alertsMissing > 0 ? `${alertsMissing} failed transfers without an alert` : '',
  ].filter(Boolean);
  if (problems.length === 0) problems.push((await webhooksIn(stack, books.inboxRows)) ?? '');
  return problems.join('') === '' ? undefined : problems.filter(Boolean).join(', ');
}

function booked(
  books: BooksState,
  expected: Map<string, { kind: string; status: string }>,
): number {
  let count = 0;
  for (const [id, truth] of expected) if (books.mirror.get(id) === truth.status) count += 1;
  return count;
}

function requestFigures(meter: RequestMeter, items: number) {
  const last = meter.latest();
  const byOperation = [...(last?.byOperation ?? new Map<string, number>())].sort(
    (a, b) => b[1] - a[1],
  );
  return {
    requestsPerItem: (last?.total ?? 0) / items,
    byOperation,
    throttled: last?.throttled ?? 0,
  };
}

function progressLine(
  startedMs: number,
  books: BooksState,
  bookedCount: number,
  total: number,
  meter: RequestMeter,
  rps: number,
): string {
  const rate = meter.recentRate(5);
  return `  ${seconds(Date.now() - startedMs)} s: booked ${bookedCount}/${total}, receipts ${books.receipts}/${total}, inbox ${books.inboxRows} (${books.inboxOpen} open), ${rate.toFixed(1)} req/s (${percent(rate / rps)} of R), 429s ${meter.latest()?.throttled ?? 0}`;
}

/** The burst (and, with the simulator at R/2, the half mode). */
async function runBurst(mode: 'burst' | 'half', rps: number): Promise<RunFigures> {
  const simRps = mode === 'half' ? Math.floor(rps / 2) : rps;
  const stack = await startBudgetStack({ dialect, simRps, budgetRps: rps, seed: SIM_SEED });
  const meter = new RequestMeter(stack.metricsUrl);
  try {
    if (mode === 'half') await stack.snapshotBalances();
    meter.start();
    await sleep(1100);
    const startedMs = Date.now();
    await seed(stack, 'transfer', perKind, BURST_CREATED_WITHIN_MS);
    await seed(stack, 'payment_intent', perKind, BURST_CREATED_WITHIN_MS);
    const expected = await truthStatuses(stack);
    const failedTransfers = [...expected.values()].filter(
      (t) => t.kind === 'transfer' && t.status === 'failed',
    ).length;
    console.log(
      `  seeded ${expected.size} items through POST /__sim/seed (not throttled), ${[...expected.values()].filter((t) => t.status === 'failed').length} failing (${failedTransfers} transfers)`,
    );
    let booksFinalPolledMs: number | undefined;
    let receiptsPolledMs: number | undefined;
    let lastPrint = 0;
    let books = await readBooks(stack);
    for (;;) {
      if (Date.now() - startedMs > timeoutMs) {
        const missing = (await missingFromBooks(stack, books, expected)) ?? '';
        throw new Error(
          `${mode} at R=${rps}: not done within ${timeoutMs / 1000} s: ${[missing, `${books.receipts}/${expected.size} receipts`].filter(Boolean).join(', ')}`,
        );
      }
      await sleep(1000);
      books = await readBooks(stack);
      const now = Date.now();
      if (
        booksFinalPolledMs === undefined &&
        (await missingFromBooks(stack, books, expected)) === undefined
      )
        booksFinalPolledMs = now;
      if (receiptsPolledMs === undefined && books.receipts >= expected.size) receiptsPolledMs = now;
      if (now - lastPrint >= 5000) {
        lastPrint = now;
        console.log(
          progressLine(startedMs, books, booked(books, expected), expected.size, meter, rps),
        );
      }
      if (booksFinalPolledMs !== undefined && receiptsPolledMs !== undefined) break;
    }
    await meter.read();
    meter.stop();
    // The recorded times are exact; the polled ones are up to a second late.
    const recorded = await recordedBooksFinal(stack);
    const booksFinalAt = Math.min(booksFinalPolledMs, recorded.books ?? booksFinalPolledMs);
    const receiptsAt = Math.min(receiptsPolledMs, recorded.receipts ?? receiptsPolledMs);
    const budget = meter.budgetUse(startedMs, receiptsAt, rps);
    let extra = '';
    let problem: string | undefined;
    if (mode === 'half') {
      const late = meter.throttledShare(startedMs + 10_000, receiptsAt);
      const audit = stack.audit();
      extra = `429 share after 10 s ${percent(late.share)} of ${late.attempts}; audit ${audit.clean ? 'clean' : 'NOT clean'}`;
      if (!audit.clean) {
        console.error(audit.output);
        problem = `audit not clean: ${audit.line}`;
      }
    }
    return {
      mode,
      simRps,
      budgetRps: rps,
      items: expected.size,
      failedTransfers,
      booksFinalMs: booksFinalAt - startedMs,
      receiptsMs: receiptsAt - startedMs,
      ...requestFigures(meter, expected.size),
      budget,
      extra,
      ...(problem ? { problem } : {}),
    };
  } finally {
    meter.stop();
    await stack.stop();
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** R/2 items a second for `steadyMinutes`, then until every one of them is booked. */
async function runSteady(rps: number): Promise<RunFigures> {
  const stack = await startBudgetStack({ dialect, simRps: rps, budgetRps: rps, seed: SIM_SEED });
  const meter = new RequestMeter(stack.metricsUrl);
  const rate = rps / 2;
  const sentAt = new Map<string, number>();
  const firstSeenFinal = new Map<string, number>();
  try {
    meter.start();
    await sleep(1100);
    const startedMs = Date.now();
    const feedMs = steadyMinutes * 60_000;
    let fed = 0;
    let lastPrint = 0;
    let books = await readBooks(stack);
    const observe = (now: number) => {
      for (const [id, status] of books.mirror) {
        if (FINAL_STATUSES.includes(status) && !firstSeenFinal.has(id)) firstSeenFinal.set(id, now);
      }
    };
    const bookedCount = () =>
      [...sentAt.keys()].filter((id) => FINAL_STATUSES.includes(books.mirror.get(id) ?? '')).length;
    let feedingEndedMs: number | undefined;
    for (;;) {
      const now = Date.now();
      if (now - startedMs > feedMs + timeoutMs) {
        throw new Error(
          `steady at R=${rps}: not booked within ${timeoutMs / 1000} s after feeding: ${sentAt.size - bookedCount()} of ${sentAt.size} items not final, ${books.inboxOpen} inbox rows open`,
        );
      }
      if (now - startedMs < feedMs) {
        // Alternate kinds so the transfers and intents fed stay within one of each other.
        const due = Math.floor(((now - startedMs) / 1000) * rate) - fed;
        if (due > 0) {
          const transfers = Math.ceil((fed + due) / 2) - Math.ceil(fed / 2);
          const intents = due - transfers;
          const callMs = Date.now();
          for (const [kind, count] of [
            ['transfer', transfers],
            ['payment_intent', intents],
          ] as const) {
            if (count === 0) continue;
            const seeded = await seed(stack, kind, count, 0);
            for (const id of seeded.ids) sentAt.set(id, callMs);
          }
          fed += due;
        }
      } else feedingEndedMs ??= now;
      books = await readBooks(stack);
      observe(Date.now());
      if (Date.now() - lastPrint >= 5000) {
        lastPrint = Date.now();
        const rateNow = meter.recentRate(5);
        console.log(
          `  ${seconds(Date.now() - startedMs)} s: fed ${sentAt.size}, booked ${bookedCount()}, inbox ${books.inboxRows} (${books.inboxOpen} open), ${rateNow.toFixed(1)} req/s (${percent(rateNow / rps)} of R), 429s ${meter.latest()?.throttled ?? 0}`,
        );
      }
      if (
        feedingEndedMs !== undefined &&
        bookedCount() === sentAt.size &&
        books.inboxOpen === 0 &&
        (await webhooksIn(stack, books.inboxRows)) === undefined
      )
        break;
      await sleep(200);
    }
    await meter.read();
    meter.stop();
    const history = await sql<{ resource_id: string; observed: unknown }>`
      select resource_id, min(observed_at) as observed from status_history
      where to_status in ('successful', 'failed', 'canceled', 'expired')
      group by resource_id`.execute(stack.database.db);
    const recorded = new Map(history.rows.map((row) => [row.resource_id, millis(row.observed)]));
    let fromHistory = 0;
    let lastBookedMs = startedMs;
    const latencies = [...sentAt]
      .map(([id, sent]) => {
        const at = recorded.get(id);
        if (at !== undefined) fromHistory += 1;
        const bookedMs = at ?? firstSeenFinal.get(id) ?? Date.now();
        lastBookedMs = Math.max(lastBookedMs, bookedMs);
        return bookedMs - sent;
      })
      .sort((a, b) => a - b);
    const budget = meter.budgetUse(startedMs, feedingEndedMs ?? Date.now(), rps);
    const expected = await truthStatuses(stack);
    const failedTransfers = [...expected.values()].filter(
      (t) => t.kind === 'transfer' && t.status === 'failed',
    ).length;
    return {
      mode: 'steady',
      simRps: rps,
      budgetRps: rps,
      items: sentAt.size,
      failedTransfers,
      booksFinalMs: lastBookedMs - startedMs,
      receiptsMs: undefined,
      ...requestFigures(meter, sentAt.size),
      budget,
      extra: `${rate} items/s × ${steadyMinutes} min: webhook → booked p50 ${seconds(quantile(latencies, 0.5))} s, p99 ${seconds(quantile(latencies, 0.99))} s (${fromHistory === latencies.length ? 'recorded times' : `${fromHistory} of ${latencies.length} recorded, the rest polled`}); receipts ${books.receipts}/${sentAt.size} when booked`,
    };
  } finally {
    meter.stop();
    await stack.stop();
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'unknown'}, Node ${process.version}`;
/** HEAD, and the last commit that changed the daemon's code when the bench's own commits follow it. */
const commit = (() => {
  try {
    const git = (args: string) => execSync(`git ${args}`, { encoding: 'utf8' }).trim();
    const head = git('rev-parse --short HEAD');
    const code = git('log -1 --format=%h -- src jobs migrations bin');
    const dirty = git('status --porcelain -- src jobs migrations bin') !== '';
    return `${head}${code === head ? '' : ` (code of ${code})`}${dirty ? ' + uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
})();
const database = dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
console.log(
  `bench:budget on ${database}, R = ${rpsList.join(', ')}, modes ${modes.join(', ')}; ${perKind} + ${perKind} items a burst, steady ${steadyMinutes} min; ${machine}; commit ${commit}`,
);

const results: RunFigures[] = [];
const failures: string[] = [];
for (const rps of rpsList) {
  for (const mode of modes as Mode[]) {
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' / ');
    console.log(
      `\n=== ${mode}: R = ${rps} (simulator ${mode === 'half' ? Math.floor(rps / 2) : rps} req/s, PAYSYNC_UPSTREAM_RPS=${rps}); load ${load} ===`,
    );
    try {
      const figures = mode === 'steady' ? await runSteady(rps) : await runBurst(mode, rps);
      results.push(figures);
      report(figures, load);
      if (figures.problem) failures.push(`${mode} at R=${rps}: ${figures.problem}`);
    } catch (error) {
      failures.push((error as Error).message);
      console.error(`  failed: ${(error as Error).message}`);
    }
  }
}

function byOperationText(figures: RunFigures): string {
  // Per item; an operation too rare to show so (a sweep's list page) as its count.
  return figures.byOperation
    .map(([operation, n]) =>
      n / figures.items < 0.005
        ? `${operation} ${n} in all`
        : `${operation} ${(n / figures.items).toFixed(2)}`,
    )
    .join(', ');
}

function report(figures: RunFigures, load: string): void {
  const lines = [
    `  ${figures.items} items (${figures.failedTransfers} failed transfers): books final ${figures.booksFinalMs === undefined ? '—' : `${seconds(figures.booksFinalMs)} s`}${figures.receiptsMs === undefined ? '' : `, receipts archived ${seconds(figures.receiptsMs)} s`}`,
    `  upstream requests ${figures.requestsPerItem.toFixed(2)} per item (${byOperationText(figures)}); 429s ${figures.throttled}`,
    `  budget use ${percent(figures.budget.average)} of R on average (${percent(figures.budget.averageThrottleable)} on the operations that document 429), ${percent(figures.budget.shareAtThreeQuarters)} of ${figures.budget.intervals} seconds at ≥ 75 % of R`,
    ...(figures.extra ? [`  ${figures.extra}`] : []),
  ];
  console.log(lines.join('\n'));
  if (values['no-write']) return;
  const label = values.label ? ` (${values.label})` : '';
  const cell = (ms: number | undefined) => (ms === undefined ? '—' : `${seconds(ms)} s`);
  const row = `| ${new Date().toISOString().slice(0, 16)}Z${label} | ${database} | ${figures.mode} | ${figures.simRps} / ${figures.budgetRps} | ${Math.ceil(figures.items / 2)} + ${Math.floor(figures.items / 2)} | ${cell(figures.booksFinalMs)} | ${cell(figures.receiptsMs)} | ${figures.requestsPerItem.toFixed(2)} (${byOperationText(figures)}) | ${figures.throttled} | ${percent(figures.budget.average)} / ${percent(figures.budget.shareAtThreeQuarters)} (${percent(figures.budget.averageThrottleable)} on 429-documented operations) | ${figures.extra || '—'} | ${machine}, load ${load} | ${commit} |`;
  appendPerformanceRow({
    marker: '<!-- bench:budget:rows (appended by `npm run bench:budget`) -->',
    header: [
      '## Budget (issue 37) (`npm run bench:budget`)',
      '',
      "The simulator throttled at R (its token bucket, `paysync sim --rps`) and one `paysync start` with `PAYSYNC_UPSTREAM_RPS=R`; half: the simulator at R/2. Items seeded settled through the simulator's control surface (not throttled), 10 % failing, 3 webhooks each. Books final: every item at its final status in the mirror, every webhook in the inbox and none open, an alert for every failed transfer; times from the seed call (steady: from the first item fed until the last one booked). Budget use: requests answered (not 429), every operation, per second ÷ R from the seed call until the last receipt (steady: while feeding), on average / the share of seconds at ≥ 75 % of R (targets ≥ 90 % / ≥ 90 %); in brackets the average on the operations that document 429 alone (the simulator's bucket counts only those: not receipts). See bench/budget.ts. Newest last.",
      '',
      '| Run | Database | Mode | R: simulator / budget | Items (transfers + intents) | Books final | Receipts archived | Upstream requests / item (by operation) | 429s | Budget use: average / seconds at ≥ 75 % | Mode figures | Machine | Commit |',
      '| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | --- |',
    ],
    row,
  });
}

if (results.length > 0) {
  console.log(
    '\n| Mode | R sim/budget | Items | Books final | Receipts | Req/item | 429s | Budget avg | ≥75 % s |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const f of results) {
    console.log(
      `| ${f.mode} | ${f.simRps}/${f.budgetRps} | ${f.items} | ${f.booksFinalMs === undefined ? '—' : seconds(f.booksFinalMs)} s | ${f.receiptsMs === undefined ? '—' : `${seconds(f.receiptsMs)} s`} | ${f.requestsPerItem.toFixed(2)} | ${f.throttled} | ${percent(f.budget.average)} | ${percent(f.budget.shareAtThreeQuarters)} |`,
    );
  }
  if (!values['no-write']) console.log('wrote docs/performance.md');
}
if (failures.length > 0) {
  console.error(`\n${failures.length} run(s) failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  process.exit(1);
}
process.exit(0);
