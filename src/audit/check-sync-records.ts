import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dialectOfDb, type Database } from '../db/index.ts';
import type { AuditScope, AuditViolation } from './audit-types.ts';

/** The kinds whose syncs record what they covered in `mirror_polls.covered_inbox_id`. */
const COVERED_KINDS = ['payment_intent', 'transfer', 'refund', 'payment_refund', 'payment_link'];

/**
 * No inbox row about a ledger item is `processed` unless a sync that started after it arrived
 * applied a fetch. The proof on file: a sync reads the highest inbox id before it fetches and
 * stores it as the item's `mirror_polls.covered_inbox_id` in the transaction that applies the
 * fetch (it only grows), so a row is covered when an item it names (by id, or by reference when
 * it gave no id) has `covered_inbox_id >= row id`. Rows naming no resource (events about
 * nothing in the books) and payment-link rows (a link has no mirror and no coverage record)
 * carry no such proof; they are counted, not judged (docs/audit.md). With a scope (an
 * incremental audit), only the rows received after its watermark or processed since its time.
 */
export async function checkInboxCoverage(
  db: Kysely<Database>,
  scope?: AuditScope,
): Promise<{ violations: AuditViolation[]; processed: number; unjudged: number }> {
  const kinds = sql.join(COVERED_KINDS.map((k) => sql.lit(k)));
  const inbox = inboxInScope(scope);
  const counts = await sql<{ judged: string; total: string }>`
    ${inbox.with} select cast(count(case when resource_kind in (${kinds}) then 1 end) as text) as judged,
      cast(count(*) as text) as total
    from ${inbox.from} where i.status = 'processed'`.execute(db);
  const rows = await sql<{
    id: string;
    resource_kind: string;
    resource_id: string | null;
    resource_reference: string | null;
    received_at: string;
    processed_at: string | null;
    covered: string | null;
  }>`
    ${inbox.with} select cast(i.id as text) as id, i.resource_kind, i.resource_id, i.resource_reference,
      i.received_at, i.processed_at,
      (select cast(max(p.covered_inbox_id) as text) from mirror_polls p
        where p.resource_kind = i.resource_kind
          and (p.resource_id = i.resource_id
            or (i.resource_id is null and p.reference = i.resource_reference))) as covered
    from ${inbox.from}
    where i.status = 'processed' and i.resource_kind in (${kinds})
      and not exists (select 1 from mirror_polls p
        where p.resource_kind = i.resource_kind and p.resource_id = i.resource_id
          and p.covered_inbox_id >= i.id)
      and not exists (select 1 from mirror_polls p
        where i.resource_id is null and p.resource_kind = i.resource_kind
          and p.reference = i.resource_reference and p.covered_inbox_id >= i.id)
    order by i.id`.execute(db);
  const violations = rows.rows.map((row): AuditViolation => {
    const names = row.resource_id ?? `reference ${row.resource_reference ?? '?'}`;
    const coverage =
      row.covered === null
        ? 'no sync of it is on record'
        : `the latest sync of it covered inbox ids up to ${row.covered}`;
    return {
      check: 'inbox_processed_uncovered',
      message: `inbox row ${row.id} (${row.resource_kind} ${names}, received ${row.received_at}) is processed, but ${coverage}`,
      ids: {
        inboxId: row.id,
        resourceKind: row.resource_kind,
        resourceId: row.resource_id ?? '',
        reference: row.resource_reference ?? '',
      },
    };
  });
  const judged = Number(counts.rows[0]?.judged ?? 0);
  const total = Number(counts.rows[0]?.total ?? 0);
  return { violations, processed: total, unjudged: total - judged };
}

/**
 * The inbox rows an audit judges, as `i`: every row, or (incremental) those received after the
 * scope's watermark and those processed since its time: two ranges of two indexes (primary key,
 * `processed_at`), never a scan. Materialized, so neither planner pushes the caller's `status`
 * or `resource_kind` test into the branches and walks an index of every processed row instead;
 * a row in both ranges is kept once (`src`).
 */
export function inboxInScope(scope: AuditScope | undefined): {
  with: RawBuilder<unknown>;
  from: RawBuilder<unknown>;
} {
  if (!scope) return { with: sql``, from: sql`webhook_inbox i` };
  const columns = sql`id, status, resource_kind, resource_id, resource_reference, received_at,
    processed_at`;
  return {
    with: sql`with scoped as materialized (
      select 1 as src, ${columns} from webhook_inbox where id > ${scope.inboxIdAfter}
      union all
      select 2 as src, ${columns} from webhook_inbox where processed_at >= ${scope.from})`,
    from: sql`(select * from scoped where src = 1 or id <= ${scope.inboxIdAfter}) i`,
  };
}

/** Whether a table exists in the database (the current schema on PostgreSQL). */
export async function tableExists(db: Kysely<Database>, table: string): Promise<boolean> {
  if (dialectOfDb(db) === 'postgres') {
    const result = await sql<{ found: string | null }>`
      select cast(to_regclass(${table}) as text) as found`.execute(db);
    return result.rows[0]?.found != null;
  }
  const result = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  return result.rows.length > 0;
}

/**
 * Every outbox row is waiting (not handed out yet), dispatched or consumed: none lost. Lost
 * means stalled: waiting, or dispatched and not consumed, for longer than `staleMs` before
 * `now` (the dispatcher hands out due rows and re-hands unconsumed ones, so after a quiet
 * period nothing should be left), or stamps that contradict each other. Only when migration
 * 0008 created the table.
 */
export async function checkOutbox(
  db: Kysely<Database>,
  now: Date,
  staleMs: number,
  scope?: AuditScope,
): Promise<{ violations: AuditViolation[]; rows: number } | undefined> {
  if (!(await tableExists(db, 'outbox'))) return undefined;
  const cutoff = new Date(now.getTime() - staleMs).toISOString();
  const found = scope
    ? await outboxSuspectsSince(db, cutoff, scope.from)
    : await outboxSuspects(db, cutoff);
  const violations = found.rows.map((row): AuditViolation => {
    const ids = { outboxId: row.id, kind: row.kind };
    if (row.consumed_at !== null && row.dispatched_at === null) {
      return {
        check: 'outbox_inconsistent',
        message: `outbox row ${row.id} (${row.kind}) was consumed at ${row.consumed_at} but never dispatched`,
        ids,
      };
    }
    if (row.dispatched_at !== null && row.dispatched_at < row.created_at) {
      return {
        check: 'outbox_inconsistent',
        message: `outbox row ${row.id} (${row.kind}) was dispatched at ${row.dispatched_at}, before it was created at ${row.created_at}`,
        ids,
      };
    }
    return {
      check: 'outbox_stalled',
      message:
        row.dispatched_at === null
          ? `outbox row ${row.id} (${row.kind}) has waited since ${row.available_at} and was never dispatched`
          : `outbox row ${row.id} (${row.kind}) was dispatched at ${row.dispatched_at} and never consumed`,
      ids,
    };
  });
  return { violations, rows: found.checked };
}

interface OutboxSuspect {
  id: string;
  kind: string;
  created_at: string;
  available_at: string;
  dispatched_at: string | null;
  consumed_at: string | null;
}

const OUTBOX_COLUMNS = sql`cast(id as text) as id, kind, created_at, available_at, dispatched_at, consumed_at`;

/** Every outbox row read: the full audit. */
async function outboxSuspects(
  db: Kysely<Database>,
  cutoff: string,
): Promise<{ rows: OutboxSuspect[]; checked: number }> {
  const count = await sql<{ n: string }>`select cast(count(*) as text) as n from outbox`.execute(
    db,
  );
  const rows = await sql<OutboxSuspect>`
    select ${OUTBOX_COLUMNS}
    from outbox
    where (consumed_at is not null and dispatched_at is null)
      or (dispatched_at is not null and dispatched_at < created_at)
      or (consumed_at is null and dispatched_at is null and available_at <= ${cutoff})
      or (consumed_at is null and dispatched_at is not null and dispatched_at <= ${cutoff})
    order by outbox.id`.execute(db);
  return { rows: rows.rows, checked: Number(count.rows[0]?.n ?? 0) };
}

/**
 * The incremental audit's outbox check, each part a range of an index (issue 22: the full read
 * took most of a one-day audit on a year of books, 1.9 million rows): rows never dispatched
 * (waiting too long, or consumed without a dispatch; `outbox_pending`), rows dispatched and not
 * consumed too long (`outbox_unconsumed`), and, of the rows dispatched since `from`, those
 * dispatched before they were created. An older contradiction was there for an earlier audit.
 */
async function outboxSuspectsSince(
  db: Kysely<Database>,
  cutoff: string,
  from: string,
): Promise<{ rows: OutboxSuspect[]; checked: number }> {
  const undispatched = await sql<OutboxSuspect>`
    select ${OUTBOX_COLUMNS} from outbox where dispatched_at is null`.execute(db);
  const unconsumed = await sql<OutboxSuspect>`
    select ${OUTBOX_COLUMNS} from outbox
    where consumed_at is null and dispatched_at is not null and dispatched_at <= ${cutoff}`.execute(
    db,
  );
  const recent = await sql<OutboxSuspect>`
    select ${OUTBOX_COLUMNS} from outbox where dispatched_at >= ${from}`.execute(db);
  const rows = new Map<string, OutboxSuspect>();
  for (const row of undispatched.rows) {
    if (row.consumed_at !== null || row.available_at <= cutoff) rows.set(row.id, row);
  }
  for (const row of unconsumed.rows) rows.set(row.id, row);
  for (const row of recent.rows) {
    if (row.dispatched_at! < row.created_at) rows.set(row.id, row);
  }
  return {
    rows: [...rows.values()].sort((a, b) => Number(a.id) - Number(b.id)),
    checked: undispatched.rows.length + recent.rows.length,
  };
}
