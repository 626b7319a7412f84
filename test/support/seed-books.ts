/**
 * Correct books, written straight into the tables by bulk insert (no daemon, no service): the
 * rows the daemon itself writes for a stream of settled items, with the same posting rules
 * (docs/ledger.md) so the auditor judges them clean. Shared by `bench:audit` (100k items on one
 * day) and `bench:history` (a year of a busy merchant).
 *
 * The mix per 100 items: 40 transfers (30 successful with a fee, 4 failed, 2 settled then
 * failed, i.e. a settlement and its reversal, 4 pending, or failed when older than a day), 40 payment intents (34 successful,
 * 6 failed), 10 refunds and 10 payment refunds (successful).
 *
 * Items are made in chunks ({@link generateBooks}), so a year of them never sits in memory at
 * once; each chunk is inserted ({@link insertChunk}) before the next is built. A second call can
 * continue after the first one's books ({@link BooksOptions.after}), as `bench:audit --since`
 * books one more day after a recorded audit.
 */
import type { Insertable, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { GroundTruth } from '../../src/audit/index.ts';
import { sqliteConnectionOf, type Database } from '../../src/db/index.ts';

export type Row<T extends keyof Database> = Insertable<Database[T]>;

/** Every table a chunk writes, in an order that keeps foreign keys satisfied. */
export const SEEDED_TABLES = [
  'payment_intents',
  'transfers',
  'refunds',
  'status_history',
  'journals',
  'journal_lines',
  'webhook_inbox',
  'mirror_polls',
  'outbox',
  'alerts',
  'alert_deliveries',
  'balance_snapshots',
  'scheduled_runs',
] as const satisfies readonly (keyof Database)[];

export type SeededTable = (typeof SEEDED_TABLES)[number];

export type Chunk = { [T in SeededTable]: Row<T>[] };

/** The numbered things a call makes: items (`tr_<n>`, `pi_<n>`, `<n>`) and each table's row ids. */
export type BooksCounter =
  | 'item'
  | 'journal'
  | 'line'
  | 'inbox'
  | 'history'
  | 'movement'
  | 'outbox'
  | 'alert'
  | 'delivery'
  | 'snapshot'
  | 'run';

/** How many of each the books made: {@link generateBooks} reports it per chunk. */
export type BooksCount = Readonly<Record<BooksCounter, number>>;

export interface BooksOptions {
  /** How many items in all. */
  readonly items: number;
  /** Items per chunk handed to the caller. @defaultValue 5000 */
  readonly chunkItems?: number;
  /** First instant of the books (UTC ISO). Items are spread evenly from here to `end`. */
  readonly start: string;
  /** Instant after the last item (UTC ISO); also the ground truth's `now`. */
  readonly end: string;
  /** Webhook events received per item (each a processed inbox row). @defaultValue 1 */
  readonly eventsPerItem?: number;
  /** Size in bytes of each event's raw body (padded JSON). @defaultValue 2 (`{}`) */
  readonly bodyBytes?: number;
  /**
   * Also write what the daemon writes beside the ledger: status history, outbox rows (receipts
   * and alerts), alerts and their deliveries, hourly balance snapshots and the scheduled runs of
   * the default cron table. @defaultValue false
   */
  readonly everything?: boolean;
  /** Collect the service's ground truth (for `runAudit`); memory grows with items. */
  readonly truth?: boolean;
  /**
   * Continue after earlier books: the item numbers and every table's ids start after these
   * (the `count` the earlier call's last chunk reported), so both sets of rows fit in one
   * database. The ground truth and the balance snapshots cover this call's items only.
   * @defaultValue nothing before: everything starts at 1
   */
  readonly after?: Partial<BooksCount>;
}

const DAY = 86_400_000;
const MODE = 'sandbox';
const CURRENCY = 'XOF';

/** Scheduled tasks of the default cron table (jobs/cron-table.ts) and their period in minutes. */
const TASKS: readonly (readonly [string, number])[] = [
  ['recover-inbox', 1],
  ['janitor', 1],
  ['sweep', 5],
  ['balances', 60],
  ['verdicts', 60],
  ['export', 1440],
];

function emptyChunk(): Chunk {
  return Object.fromEntries(SEEDED_TABLES.map((t) => [t, []])) as unknown as Chunk;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A webhook body of about `bytes` bytes: the event, padded with a plausible `data` object. */
function eventBody(eventId: string, type: string, id: string, at: string, bytes: number): Buffer {
  const head = { id: eventId, type, created_at: at, data: { id, status: type.split('.')[1] } };
  const text = JSON.stringify(head);
  if (bytes <= 2) return Buffer.from('{}');
  const pad = Math.max(0, bytes - text.length - 16);
  return Buffer.from(JSON.stringify({ ...head, metadata: { note: 'x'.repeat(pad) } }));
}

/**
 * Builds the books chunk by chunk and hands each to `onChunk` (which inserts it). Returns the
 * ground truth when asked for, else a truth with no items.
 */
export async function generateBooks(
  options: BooksOptions,
  onChunk: (chunk: Chunk, itemsSoFar: number, count: BooksCount) => Promise<void>,
): Promise<GroundTruth> {
  const chunkItems = options.chunkItems ?? 5000;
  const eventsPerItem = options.eventsPerItem ?? 1;
  const bodyBytes = options.bodyBytes ?? 2;
  const everything = options.everything ?? false;
  const startMs = Date.parse(options.start);
  const endMs = Date.parse(options.end);
  const step = (endMs - startMs) / options.items;
  const truth: GroundTruth = {
    now: options.end,
    items: [],
    movements: [],
    balances: { sandbox: [], live: [] },
  };
  const balances = new Map<string, number>();
  const after = options.after ?? {};
  const firstItem = after.item ?? 0;
  const ids = {
    journal: after.journal ?? 0,
    line: after.line ?? 0,
    inbox: after.inbox ?? 0,
    history: after.history ?? 0,
    movement: after.movement ?? 0,
    outbox: after.outbox ?? 0,
    alert: after.alert ?? 0,
    delivery: after.delivery ?? 0,
    snapshot: after.snapshot ?? 0,
    run: after.run ?? 0,
  };
  // Scheduled runs and snapshots are written up to the time of the chunk's last item.
  let clockDoneMs = startMs;
  let chunk = emptyChunk();

  const move = (accountType: string, amount: number, kind: string, resourceId: string) => {
    balances.set(accountType, (balances.get(accountType) ?? 0) + amount);
    if (!options.truth) return;
    ids.movement += 1;
    truth.movements.push({
      id: `mv_${ids.movement}`,
      mode: MODE,
      accountType,
      currency: CURRENCY,
      amount,
      kind,
      resourceId,
    });
  };

  const scheduledUpTo = (untilMs: number) => {
    if (!everything) return;
    const firstMinute = Math.ceil(clockDoneMs / 60_000);
    const lastMinute = Math.floor(untilMs / 60_000);
    for (let minute = firstMinute; minute <= lastMinute; minute += 1) {
      const at = minute * 60_000;
      for (const [task, period] of TASKS) {
        if (minute % period !== 0) continue;
        ids.run += 1;
        chunk.scheduled_runs.push({
          id: ids.run,
          task,
          slot: iso(at),
          attempt: 1,
          trigger: 'schedule',
          started_at: iso(at + 50),
          heartbeat_at: iso(at + 900),
          finished_at: iso(at + 950),
          outcome: 'succeeded',
          items_seen: task === 'sweep' ? 40 : 0,
          items_changed: 0,
          items_missed: 0,
          pages_read: task === 'sweep' ? 4 : 0,
          upstream_calls: task === 'sweep' ? 4 : task === 'balances' ? 1 : 0,
          checkpoint: null,
          error: null,
        } as Row<'scheduled_runs'>);
      }
      if (minute % 60 === 0) {
        const takenAt = iso(at + 200);
        for (const account of ['collection', 'transfer']) {
          ids.snapshot += 1;
          chunk.balance_snapshots.push({
            id: ids.snapshot,
            environment: MODE,
            account_type: account,
            currency: CURRENCY,
            amount: balances.get(account) ?? 0,
            as_of: takenAt,
            taken_at: takenAt,
            kind: minute % 1440 === 0 ? 'end_of_day' : 'scheduled',
            raw: '{}',
          } as Row<'balance_snapshots'>);
        }
      }
    }
    clockDoneMs = (lastMinute + 1) * 60_000;
  };

  for (let made = 0; made < options.items; made += 1) {
    const n = firstItem + made;
    const createdMs = startMs + Math.floor(made * step);
    const created = iso(createdMs);
    // The item settles a few seconds after it is created; the daemon sees it soon after.
    const settledMs = createdMs + 3_000 + (n % 7) * 1_000;
    const settled = iso(settledMs);
    const synced = iso(createdMs + 5_000 + (n % 7) * 1_000);
    const slot = n % 100;
    const amount = 100 * (1 + (n % 500));
    const mirror = {
      raw: '{}',
      first_seen_at: created,
      last_synced_at: synced,
      updated_at: settled,
    };

    /** Events received for the item: the first on creation, the last at settlement. */
    const received = (kind: string, id: string, statuses: readonly string[]) => {
      let last = 0;
      for (let e = 0; e < eventsPerItem; e += 1) {
        ids.inbox += 1;
        const status = statuses[Math.min(e, statuses.length - 1)]!;
        const at = iso(createdMs + 500 + e * 1_500);
        const eventId = `evt_${ids.inbox}`;
        const type = `${kind}.${status}`;
        chunk.webhook_inbox.push({
          id: ids.inbox,
          dedupe_key: `event:${eventId}`,
          event_id: eventId,
          event_type: type,
          raw_body: eventBody(eventId, type, id, at, bodyBytes),
          headers: '{"content-type":"application/json"}',
          received_at: at,
          status: 'processed',
          processed_at: iso(createdMs + 700 + e * 1_500),
          resource_kind: kind,
          resource_id: id,
        } as Row<'webhook_inbox'>);
        last = ids.inbox;
      }
      chunk.mirror_polls.push({
        resource_kind: kind,
        resource_id: id,
        covered_inbox_id: last,
        // An open item is polled again later, as the poll plan would schedule it.
        next_poll_at: statuses.at(-1) === 'pending' ? iso(endMs + 60_000) : null,
      } as Row<'mirror_polls'>);
      return last;
    };
    const history = (kind: string, id: string, statuses: readonly string[], inboxId: number) => {
      if (!everything) return;
      let from: string | null = null;
      statuses.forEach((to, index) => {
        ids.history += 1;
        chunk.status_history.push({
          id: ids.history,
          resource_kind: kind,
          resource_id: id,
          from_status: from,
          to_status: to,
          observed_at: index === 0 ? iso(createdMs + 800) : synced,
          via: 'webhook',
          inbox_id: inboxId,
          // Each change has its own service time; the last is the mirror's `updated_at`.
          service_updated_at:
            index === 0 ? created : iso(settledMs - (statuses.length - 1 - index) * 1_000),
        } as Row<'status_history'>);
        from = to;
      });
    };
    const book = (
      kind: string,
      id: string,
      key: string,
      entry: 'settlement' | 'reversal',
      lines: readonly (readonly [string, number])[],
      reverses: number | null = null,
    ) => {
      ids.journal += 1;
      chunk.journals.push({
        id: ids.journal,
        resource_kind: kind,
        resource_id: id,
        settlement_key: key,
        entry_type: entry,
        reverses_journal_id: reverses,
        description: `${kind} ${id}`,
        effective_at: settled,
        posted_at: synced,
        via: 'webhook',
        inbox_id: null,
      } as Row<'journals'>);
      lines.forEach(([account, value], index) => {
        ids.line += 1;
        chunk.journal_lines.push({
          id: ids.line,
          journal_id: ids.journal,
          line_no: index + 1,
          account,
          currency: CURRENCY,
          amount: value,
        } as Row<'journal_lines'>);
      });
      return ids.journal;
    };
    const followUp = (kind: string, id: string, status: string) => {
      if (!everything) return;
      ids.outbox += 1;
      const failed = kind === 'transfer' && status === 'failed';
      chunk.outbox.push({
        id: ids.outbox,
        kind: failed ? 'alert' : 'receipt',
        dedupe_key: failed
          ? `alert:transfer_failed:${kind}:${id}`
          : `receipt:${kind}:${id}:${status}`,
        payload: JSON.stringify(
          failed ? { reason: 'transfer_failed', kind, id } : { kind, id, status },
        ),
        created_at: synced,
        available_at: synced,
        dispatched_at: synced,
        consumed_at: synced,
      } as Row<'outbox'>);
      if (!failed) return;
      ids.alert += 1;
      chunk.alerts.push({
        id: ids.alert,
        kind: 'transfer_failed',
        severity: 'warning',
        dedupe_key: `transfer_failed:${id}`,
        open_key: null,
        subject: id,
        title: `Transfer ${id} failed`,
        body: `Transfer ${id} of ${amount} ${CURRENCY} failed at the service.`,
        detail: JSON.stringify({ kind, id, amount, currency: CURRENCY }),
        status: 'resolved',
        digested: 0,
        occurrences: 1,
        created_at: synced,
        last_seen_at: synced,
        notified_at: synced,
        acked_at: null,
        ack_note: null,
        snoozed_until: null,
        resolved_at: iso(createdMs + DAY / 2),
        resolved_by: 'ops',
      } as Row<'alerts'>);
      ids.delivery += 1;
      chunk.alert_deliveries.push({
        id: ids.delivery,
        alert_id: ids.alert,
        digest_id: null,
        sink: 'log',
        event: 'raised',
        message: `Transfer ${id} failed`,
        status: 'delivered',
        attempts: 1,
        last_error: null,
        next_attempt_at: null,
        claimed_until: null,
        created_at: synced,
        delivered_at: synced,
      } as Row<'alert_deliveries'>);
    };

    if (slot < 40) {
      const id = `tr_${n}`;
      // A transfer stays pending for a day at most: older ones of the pending share failed, so
      // a year of books does not hand the janitor months of open items to poll.
      const stillPending = slot >= 36 && createdMs >= endMs - DAY;
      const final = slot < 30 ? 'successful' : slot < 36 || !stillPending ? 'failed' : 'pending';
      const path =
        slot < 30
          ? ['pending', 'successful']
          : slot < 32
            ? ['pending', 'successful', 'failed']
            : stillPending
              ? ['pending']
              : ['pending', 'failed'];
      chunk.transfers.push({
        ...mirror,
        id,
        merchant_id: 'mch_1',
        reference: `ref-${n}`,
        status: final,
        upstream_status: final,
        amount,
        currency: CURRENCY,
        mode: MODE,
        is_irt: 0,
        is_delegated: 0,
        fees: '[]',
        destination: '{}',
        description: 'payout',
        provider_reference: 'p',
        failure_code: final === 'failed' ? 'insufficient_funds' : null,
        failure_message: final === 'failed' ? 'the recipient account was closed' : null,
        created_at: created,
      } as Row<'transfers'>);
      const lines: [string, number][] = [
        ['payouts:recipients', amount],
        ['expenses:transfer-fees', 100],
        ['service:transfer', -(amount + 100)],
      ];
      if (slot < 30) {
        book('transfer', id, 'settlement-1', 'settlement', lines);
        move('transfer', -amount, 'transfer', id);
        move('transfer', -100, 'transfer_fee', id);
      } else if (slot < 32) {
        // settled, then failed: the books hold a settlement and its reversal, net nothing
        const first = book('transfer', id, 'settlement-1', 'settlement', lines);
        const back = lines.map(([a, v]) => [a, -v] as const);
        book('transfer', id, 'reversal-1', 'reversal', back, first);
      }
      if (options.truth) truth.items.push({ kind: 'transfer', id, mode: MODE, status: final });
      const inboxId = received('transfer', id, path);
      history('transfer', id, path, inboxId);
      if (final !== 'pending') followUp('transfer', id, final);
    } else if (slot < 80) {
      const id = `pi_${n}`;
      const status = slot < 74 ? 'successful' : 'failed';
      chunk.payment_intents.push({
        ...mirror,
        id,
        merchant_id: 'mch_1',
        status,
        upstream_status: status,
        amount,
        currency: CURRENCY,
        mode: MODE,
        purchase_reference: `order-${n}`,
        customer_reference: 'c',
        sub_merchant_id: null,
        failure_code: null,
        failure_message: null,
        created_at: created,
      } as Row<'payment_intents'>);
      if (status === 'successful') {
        book('payment_intent', id, 'settlement-1', 'settlement', [
          ['service:collection', amount],
          ['income:payments', -amount],
        ]);
        move('collection', amount, 'payment', id);
      }
      if (options.truth) truth.items.push({ kind: 'payment_intent', id, mode: MODE, status });
      const path = ['pending', status];
      const inboxId = received('payment_intent', id, path);
      history('payment_intent', id, path, inboxId);
      if (status === 'successful') followUp('payment_intent', id, status);
    } else {
      const kind = slot < 90 ? 'refund' : 'payment_refund';
      const id = String(n);
      chunk.refunds.push({
        ...mirror,
        kind,
        id,
        status: 'successful',
        upstream_status: 'successful',
        amount,
        currency: CURRENCY,
        original_id: null,
        mode: MODE,
        reason: null,
        payment_method: null,
        failure_code: null,
        failure_message: null,
        created_at: created,
      } as Row<'refunds'>);
      if (kind === 'refund') {
        book(kind, id, 'settlement-1', 'settlement', [
          ['service:transfer', amount],
          ['payouts:recipients', -amount],
        ]);
        move('transfer', amount, 'transfer_refund', id);
      } else {
        book(kind, id, 'settlement-1', 'settlement', [
          ['refunds:customers', amount],
          ['service:collection', -amount],
        ]);
        move('collection', -amount, 'payment_refund', id);
      }
      if (options.truth) truth.items.push({ kind, id, mode: MODE, status: 'successful' });
      const path = ['pending', 'successful'];
      const inboxId = received(kind, id, path);
      history(kind, id, path, inboxId);
      followUp(kind, id, 'successful');
    }
    const last = made === options.items - 1;
    if ((made + 1) % chunkItems === 0 || last) {
      scheduledUpTo(last ? endMs - 1 : createdMs);
      await onChunk(chunk, made + 1, { item: n + 1, ...ids });
      chunk = emptyChunk();
    }
  }
  truth.balances.sandbox = [...balances].map(([accountType, amount]) => ({
    accountType,
    currency: CURRENCY,
    amount,
  }));
  return truth;
}

/** Multi-row inserts of at most ~30,000 parameters (SQLite's limit is 32,766; PostgreSQL's 65,535). */
export async function insertRows<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Row<T>[],
): Promise<void> {
  const columns = rows.length === 0 ? 1 : Object.keys(rows[0]!).length;
  const perStatement = Math.max(1, Math.floor(30_000 / columns));
  for (let start = 0; start < rows.length; start += perStatement) {
    // Every row of one table has the same keys; kysely's table generics cannot follow `T` here.
    await db
      .insertInto(table)
      .values(rows.slice(start, start + perStatement) as never)
      .execute();
  }
}

/**
 * Inserts one chunk in one transaction; returns the number of rows written. On SQLite the rows
 * go through one prepared statement per table on the raw connection, several times faster
 * than kysely's compiled multi-row inserts; on PostgreSQL, multi-row inserts.
 */
export async function insertChunk(db: Kysely<Database>, chunk: Chunk): Promise<number> {
  let rows = 0;
  for (const table of SEEDED_TABLES) rows += chunk[table].length;
  const dayTotals = dayTotalsOf(chunk);
  const sqlite = sqliteConnectionOf(db);
  if (sqlite) {
    await db.connection().execute(async () => {
      sqlite.transaction(() => {
        for (const table of SEEDED_TABLES) {
          const list = chunk[table] as Record<string, unknown>[];
          if (list.length === 0) continue;
          const columns = Object.keys(list[0]!);
          const insert = sqlite.prepare(
            `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
          );
          for (const row of list) insert.run(columns.map((c) => row[c] ?? null));
        }
        const add = sqlite.prepare(`${ADD_DAY_TOTAL} (?, ?, ?, ?) ${ON_DAY_TOTAL}`);
        for (const row of dayTotals) add.run(row.day, row.account, row.currency, row.amount);
      })();
    });
    return rows;
  }
  await db.transaction().execute(async (trx) => {
    for (const table of SEEDED_TABLES) {
      await insertRows(trx, table, chunk[table] as Row<typeof table>[]);
    }
    for (const row of dayTotals) {
      await sql`${sql.raw(ADD_DAY_TOTAL)} (${row.day}, ${row.account}, ${row.currency}, ${row.amount}) ${sql.raw(ON_DAY_TOTAL)}`.execute(
        trx,
      );
    }
  });
  return rows;
}

// The ledger keeps its day totals as it books (migration 0014); a bulk load that writes lines
// behind its back must add them too, or the balances read from them would miss the load.
const ADD_DAY_TOTAL = 'insert into ledger_day_totals (day, account, currency, amount) values';
const ON_DAY_TOTAL =
  'on conflict (day, account, currency) do update set amount = ledger_day_totals.amount + excluded.amount';

/** The chunk's lines summed per (UTC day of their journal, account, currency), sorted. */
function dayTotalsOf(
  chunk: Chunk,
): { day: string; account: string; currency: string; amount: number }[] {
  const dayOfJournal = new Map(chunk.journals.map((j) => [j.id, j.effective_at.slice(0, 10)]));
  const sums = new Map<
    string,
    { day: string; account: string; currency: string; amount: number }
  >();
  for (const line of chunk.journal_lines) {
    const day = dayOfJournal.get(line.journal_id)!;
    const key = `${day}\u0000${line.account}\u0000${line.currency}`;
    const row = sums.get(key);
    if (row) row.amount += line.amount;
    else
      sums.set(key, { day, account: line.account, currency: line.currency, amount: line.amount });
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}

/**
 * On PostgreSQL, rows inserted with explicit ids leave each identity sequence behind; move every
 * sequence past its table's largest id, so the daemon's own inserts do not collide.
 */
export async function advanceIdentitySequences(db: Kysely<Database>): Promise<void> {
  for (const table of SEEDED_TABLES) {
    if (table === 'payment_intents' || table === 'transfers' || table === 'refunds') continue;
    if (table === 'mirror_polls') continue;
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
      db,
    );
  }
}
