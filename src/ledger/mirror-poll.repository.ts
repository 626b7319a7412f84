import { sql } from 'kysely';
import { chunksOf, runBulk, type BulkStatement } from '../db/index.ts';
import { resolveDiscrepancy } from './discrepancy.repository.ts';
import type { Executor } from '../db/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import { nextPollDue, pollGap, type PollPlan } from './poll-plan.ts';
import { isTerminal } from './status-rules.ts';
import { fetchCoverages, type CoverageHandle, type FetchCoverage } from './fetch-coverages.ts';

export type { FetchCoverage } from './fetch-coverages.ts';

export interface MirrorItemKey {
  readonly kind: LedgerResourceKind;
  readonly id: string;
}

/** One change the mirror took, from which the item's poll schedule restarts. */
export interface PollRestart {
  readonly key: MirrorItemKey;
  readonly status: string;
  readonly changedAt: string;
  readonly plan: PollPlan;
}

const SCHEDULE_COLUMNS = [
  'resource_kind',
  'resource_id',
  'reference',
  'next_poll_at',
  'poll_step',
  'stuck_discrepancy_id',
];
const SCHEDULE: BulkStatement = {
  table: 'mirror_polls',
  columns: SCHEDULE_COLUMNS,
  tail: 'on conflict (resource_kind, resource_id) do update set next_poll_at = excluded.next_poll_at, poll_step = excluded.poll_step',
};
const SCHEDULE_SETTLED: BulkStatement = {
  ...SCHEDULE,
  tail: `${SCHEDULE.tail}, stuck_discrepancy_id = null`,
};

/**
 * Restarts each item's poll schedule from the changes the mirror just took, in the caller's
 * transaction and in order: the first poll one gap after the item's last change, none once it
 * is terminal. Settling resolves an open `stuck` discrepancy (at the first terminal change).
 */
export async function scheduleAfterChanges(
  db: Executor,
  changes: readonly PollRestart[],
): Promise<void> {
  const items = new Map<string, { last: PollRestart; settledAt: string | undefined }>();
  for (const change of changes) {
    const key = `${change.key.kind}:${change.key.id}`;
    const item = items.get(key);
    const terminalAt = isTerminal(change.status) ? change.changedAt : undefined;
    items.set(key, { last: change, settledAt: item?.settledAt ?? terminalAt });
  }
  const settled = [...items.values()].filter((item) => item.settledAt !== undefined);
  const stuck = await stuckDiscrepancyIds(
    db,
    settled.map((item) => item.last.key),
  );
  for (const item of settled) {
    const id = stuck.get(`${item.last.key.kind}:${item.last.key.id}`);
    if (id !== undefined) await resolveDiscrepancy(db, id, item.settledAt!);
  }
  const row = ({ last }: { last: PollRestart }) => [
    last.key.kind,
    last.key.id,
    null,
    isTerminal(last.status)
      ? null
      : new Date(
          new Date(last.changedAt).getTime() + pollGap(last.plan, last.key.kind, 0),
        ).toISOString(),
    0,
    null,
  ];
  // By key, so a concurrent writer of the same rows (the janitor) meets them in one order.
  const all = [...items.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, item]) => item);
  await runBulk(db, SCHEDULE, all.filter((item) => item.settledAt === undefined).map(row));
  await runBulk(db, SCHEDULE_SETTLED, all.filter((item) => item.settledAt !== undefined).map(row));
}

/** The open `stuck` discrepancy linked to each of `keys`, by `kind:id`. */
async function stuckDiscrepancyIds(
  db: Executor,
  keys: readonly MirrorItemKey[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const byKind = new Map<string, string[]>();
  for (const key of keys) byKind.set(key.kind, [...(byKind.get(key.kind) ?? []), key.id]);
  for (const [kind, ids] of byKind) {
    for (const chunk of chunksOf(ids)) {
      const rows = await db
        .selectFrom('mirror_polls')
        .select(['resource_id', 'stuck_discrepancy_id'])
        .where('resource_kind', '=', kind)
        .where('resource_id', 'in', chunk)
        .where('stuck_discrepancy_id', 'is not', null)
        .execute();
      for (const row of rows)
        found.set(`${kind}:${row.resource_id}`, Number(row.stuck_discrepancy_id));
    }
  }
  return found;
}

/**
 * The coverage of the item a sync names (by id, else by reference). Undefined when no applied
 * fetch is on file, or when a reference names several items that disagree: then fetch.
 */
export async function fetchCoverage(
  db: Executor,
  handle: CoverageHandle,
  now: string,
): Promise<FetchCoverage | undefined> {
  const [coverage] = await fetchCoverages(db, [handle], now);
  return coverage;
}

/**
 * Notes, in the transaction that applied a fetch, what that fetch covered: inbox rows up to
 * `upToInboxId`, and any poll asked for before `fetchStartedAt`. The sync closes inbox rows
 * only with this record beside them; `paysync audit` relies on it.
 */
export async function recordFetchCoverage(
  db: Executor,
  // A payment link has no mirror, but its sync's coverage is recorded too (as `payment_link`,
  // never due for a poll) so the auditor can prove its inbox rows were covered.
  item: { kind: LedgerResourceKind | 'payment_link'; id: string; reference?: string | undefined },
  fetch: { upToInboxId: number; fetchStartedAt: string },
): Promise<void> {
  await db
    .insertInto('mirror_polls')
    .values({
      resource_kind: item.kind,
      resource_id: item.id,
      reference: item.reference ?? null,
      next_poll_at: null,
      poll_requested_at: null,
      stuck_discrepancy_id: null,
      covered_inbox_id: fetch.upToInboxId,
    })
    .onConflict((oc) =>
      oc.columns(['resource_kind', 'resource_id']).doUpdateSet((eb) => ({
        reference: eb.fn.coalesce(eb.ref('excluded.reference'), eb.ref('mirror_polls.reference')),
        covered_inbox_id: sql<number>`case when excluded.covered_inbox_id > mirror_polls.covered_inbox_id then excluded.covered_inbox_id else mirror_polls.covered_inbox_id end`,
        poll_requested_at: sql<
          string | null
        >`case when mirror_polls.poll_requested_at <= ${fetch.fetchStartedAt} then null else mirror_polls.poll_requested_at end`,
      })),
    )
    .execute();
}

const RECORD_COVERAGES: BulkStatement = {
  table: 'mirror_polls',
  columns: [
    'resource_kind',
    'resource_id',
    'reference',
    'next_poll_at',
    'poll_requested_at',
    'stuck_discrepancy_id',
    'covered_inbox_id',
  ],
  // {0}: when the batch's fetches began; a poll asked for before then is answered.
  tail:
    'on conflict (resource_kind, resource_id) do update set' +
    ' reference = coalesce(excluded.reference, mirror_polls.reference),' +
    ' covered_inbox_id = case when excluded.covered_inbox_id > mirror_polls.covered_inbox_id' +
    ' then excluded.covered_inbox_id else mirror_polls.covered_inbox_id end,' +
    ' poll_requested_at = case when mirror_polls.poll_requested_at <= {0}' +
    ' then null else mirror_polls.poll_requested_at end',
};

/**
 * The batch form of {@link recordFetchCoverage}: one multi-row upsert for the items of one
 * batch, all fetched from `fetchStartedAt` on. Items must be distinct.
 */
export async function recordFetchCoverages(
  db: Executor,
  items: readonly {
    kind: LedgerResourceKind | 'payment_link';
    id: string;
    reference?: string | undefined;
    /** This item's own fetch's highest inbox id, when it differs from the batch's. */
    upToInboxId?: number | undefined;
  }[],
  fetch: { upToInboxId: number; fetchStartedAt: string },
): Promise<void> {
  await runBulk(
    db,
    RECORD_COVERAGES,
    items.map((item) => [
      item.kind,
      item.id,
      item.reference ?? null,
      null,
      null,
      null,
      item.upToInboxId ?? fetch.upToInboxId,
    ]),
    [fetch.fetchStartedAt],
  );
}

/** A poll the janitor owes: an item whose `next_poll_at` has come. */
export interface DuePoll {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  readonly reference: string | undefined;
  readonly nextPollAt: string;
  readonly step: number;
}

/** Due polls, oldest first: one range scan of the `next_poll_at` index. */
export async function duePolls(db: Executor, now: string, limit: number): Promise<DuePoll[]> {
  const rows = await db
    .selectFrom('mirror_polls')
    .select(['resource_kind', 'resource_id', 'reference', 'next_poll_at', 'poll_step'])
    .where('next_poll_at', '<=', now)
    .orderBy('next_poll_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    kind: row.resource_kind as LedgerResourceKind,
    id: row.resource_id,
    reference: row.reference ?? undefined,
    nextPollAt: row.next_poll_at!,
    step: Number(row.poll_step),
  }));
}

/**
 * Moves a due poll to its next slot and marks a poll as asked for. Conditional on the due
 * time read, so two janitors racing over one item advance it once; false for the loser.
 */
export async function claimDuePoll(
  db: Executor,
  poll: DuePoll,
  plan: PollPlan,
  now: Date,
): Promise<boolean> {
  const next = nextPollDue(plan, poll.kind, poll.step, new Date(poll.nextPollAt), now);
  const result = await db
    .updateTable('mirror_polls')
    .set({
      next_poll_at: next.toISOString(),
      poll_step: poll.step + 1,
      poll_requested_at: now.toISOString(),
    })
    .where('resource_kind', '=', poll.kind)
    .where('resource_id', '=', poll.id)
    .where('next_poll_at', '=', poll.nextPollAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A non-terminal item past its SLA with no `stuck` discrepancy yet. */
export interface StuckCandidate {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  readonly status: string;
  /** When the item was created (the service's createdAt, else first seen), UTC ms. */
  readonly since: string;
  readonly lastSyncedAt: string;
}

/** Which non-terminal items count as stuck: a kind, optionally a status, and its cut-off. */
export interface StuckRule {
  readonly kind: LedgerResourceKind;
  /** Only these mirror statuses (undefined: any non-terminal one, except `exceptStatuses`). */
  readonly statuses?: readonly string[];
  readonly exceptStatuses?: readonly string[];
  /** Items created at or before this time are past their SLA. */
  readonly createdBefore: string;
}

const MIRROR_TABLE = {
  payment_intent: 'payment_intents',
  transfer: 'transfers',
  refund: 'refunds',
  payment_refund: 'refunds',
} as const;

/** Items past their SLA not yet flagged, through the janitor's index (non-terminal rows only). */
export async function stuckCandidates(
  db: Executor,
  rule: StuckRule,
  limit: number,
): Promise<StuckCandidate[]> {
  const table = MIRROR_TABLE[rule.kind];
  const refundKind = table === 'refunds' ? sql` and m.kind = p.resource_kind` : sql``;
  const statusIn = rule.statuses
    ? sql` and m.status in (${sql.join(rule.statuses)})`
    : rule.exceptStatuses
      ? sql` and m.status not in (${sql.join(rule.exceptStatuses)})`
      : sql``;
  const since = sql`coalesce(m.created_at, m.first_seen_at)`;
  const result = await sql<{ id: string; status: string; since: string; last_synced_at: string }>`
    select p.resource_id as id, m.status, ${since} as since, m.last_synced_at
    from mirror_polls p join ${sql.table(table)} m on m.id = p.resource_id${refundKind}
    where p.resource_kind = ${rule.kind} and p.next_poll_at is not null
      and p.stuck_discrepancy_id is null and ${since} <= ${rule.createdBefore}${statusIn}
    order by ${since} limit ${limit}`.execute(db);
  return result.rows.map((row) => ({
    kind: rule.kind,
    id: row.id,
    status: row.status,
    since: row.since,
    lastSyncedAt: row.last_synced_at,
  }));
}

/** Links the item to its `stuck` discrepancy; false when it settled or was flagged meanwhile. */
export async function markStuck(
  db: Executor,
  key: MirrorItemKey,
  discrepancyId: number,
): Promise<boolean> {
  const result = await db
    .updateTable('mirror_polls')
    .set({ stuck_discrepancy_id: discrepancyId })
    .where('resource_kind', '=', key.kind)
    .where('resource_id', '=', key.id)
    .where('next_poll_at', 'is not', null)
    .where('stuck_discrepancy_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
