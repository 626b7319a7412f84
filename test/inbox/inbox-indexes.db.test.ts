/**
 * The inbox is the hottest table: every index costs the receiver's insert and the worker's
 * update. Migration 0016 left the indexes below, each serving statements no other serves as
 * well (docs/performance.md, "Indexes of the inbox"). These tests hold the two statements whose
 * index changed to the index meant for them, on a database without statistics (SQLite as
 * paysync runs it: nothing runs ANALYZE), and the count the pipeline page shows.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeCoveredInboxRowsOf,
  inboxCountSince,
  inboxEventsAbout,
  inboxMentionedResources,
  latestOpenInboxIdsFor,
  pruneInboxBodies,
  referenceFromInbox,
  type InboxStatus,
  type ResourceHandle,
} from '../../src/inbox/index.ts';
import { planOf, statementsOf } from '../support/query-plan.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
const NOW = Date.parse('2030-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  database = await freshDatabase();
  // 300 rows processed over 300 hours, the older half already pruned; a few of each other status.
  const rows = Array.from({ length: 300 }, (_, i) => {
    const processedAt = iso(NOW - (300 - i) * 3_600_000);
    return {
      dedupe_key: `event:evt_${i}`,
      event_id: `evt_${i}`,
      event_type: 'transfer.updated',
      raw_body: Buffer.from(i < 150 ? '' : '{"id":"evt"}'),
      headers: '{}',
      received_at: processedAt,
      status: 'processed' as InboxStatus,
      processed_at: processedAt,
      body_pruned_at: i < 150 ? iso(NOW - 100 * 3_600_000) : null,
    };
  });
  const others = (['received', 'processing', 'unclassified', 'failed'] as const).map(
    (status, i) => ({
      dedupe_key: `event:evt_other_${i}`,
      event_id: `evt_other_${i}`,
      event_type: 'transfer.updated',
      raw_body: Buffer.from('{}'),
      headers: '{}',
      received_at: iso(NOW - 10 * 60_000),
      status,
      processed_at: status === 'unclassified' || status === 'failed' ? iso(NOW - 5 * 60_000) : null,
    }),
  );
  await database.db
    .insertInto('webhook_inbox')
    .values([...rows, ...others])
    .execute();
});

afterAll(async () => {
  await database?.cleanup();
});

async function indexNames(): Promise<string[]> {
  if (testDialect() === 'sqlite') {
    const rows = await sql<{
      name: string;
    }>`select name from pragma_index_list('webhook_inbox') where origin = 'c'`.execute(database.db);
    return rows.rows.map((row) => row.name).sort();
  }
  const rows = await sql<{ name: string }>`select indexname as name from pg_indexes
    where schemaname = current_schema() and tablename = 'webhook_inbox'
      and indexname not in ('webhook_inbox_pkey', 'webhook_inbox_dedupe_key_key')`.execute(
    database.db,
  );
  return rows.rows.map((row) => row.name).sort();
}

/** What a sync batch asks of the inbox about its resources: their latest open ids, then the close. */
async function syncStatements(db: TestDatabase['db'], resources: readonly ResourceHandle[]) {
  await latestOpenInboxIdsFor(db, resources);
  await closeCoveredInboxRowsOf(
    db,
    resources.map((resource) => ({ resource, upToId: 1_000 })),
    { status: 'processed', at: iso(NOW) },
  );
}

describe(`the inbox's indexes on ${testDialect()}`, () => {
  it('are the five that migrations 0016 and 0021 kept, beside the primary and dedupe keys', async () => {
    expect(await indexNames()).toEqual([
      'webhook_inbox_body_prunable',
      'webhook_inbox_processed_at',
      'webhook_inbox_reference_only',
      'webhook_inbox_resource_id_kind',
      'webhook_inbox_status_received_at',
    ]);
  });

  it('the retention batch picks its rows from the partial index of bodies still held', async () => {
    const [pick] = await statementsOf(database, (db) =>
      pruneInboxBodies(db, {
        before: new Date(NOW - 200 * 3_600_000),
        limit: 10,
        at: new Date(NOW),
      }),
    );
    const plan = await planOf(database, pick!);
    if (testDialect() === 'sqlite') {
      // Not an index of every processed row: that one rereads the pruned rows in every batch.
      expect(plan).toMatch(
        /SEARCH webhook_inbox USING INDEX webhook_inbox_body_prunable \(status=\? AND processed_at<\?\)/,
      );
    } else {
      expect(plan).toMatch(/Index Cond: .*processed_at </);
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it("the worker's statements about a batch's resources use the (resource_id, resource_kind) index", async () => {
    const resources = [
      { kind: 'transfer' as const, id: 'tr_1' },
      { kind: 'transfer' as const, id: 'tr_2' },
    ];
    const statements = await statementsOf(database, async (db) => {
      await syncStatements(db, resources);
      await inboxMentionedResources(db, 'transfer', [{ id: 'tr_1' }]);
      await referenceFromInbox(db, 'transfer', 'tr_1');
    });
    expect(statements).toHaveLength(4);
    for (const statement of statements) {
      const plan = await planOf(database, statement);
      if (testDialect() === 'sqlite') {
        // One search per statement, or per branch of the close's OR of (id, highest id) pairs.
        const searches = plan.split('\n').filter((line) => line.includes('webhook_inbox'));
        expect(searches.length).toBeGreaterThan(0);
        for (const search of searches)
          expect(search).toMatch(
            /^SEARCH webhook_inbox USING (COVERING )?INDEX webhook_inbox_resource_id_kind \(resource_id=\? AND resource_kind=\?/,
          );
      } else {
        expect(plan).toMatch(/webhook_inbox_resource_id_kind/);
        expect(plan).toMatch(/Index Cond: .*resource_kind = /);
      }
    }
  });

  it("an item's events of any kind use the same index by its first column, and the references' partial index", async () => {
    const [read] = await statementsOf(database, (db) =>
      inboxEventsAbout(db, { kind: 'transfer', id: 'tr_1', references: ['ref-1'] }),
    );
    const plan = await planOf(database, read!);
    if (testDialect() === 'sqlite') {
      expect(plan).toMatch(
        /SEARCH webhook_inbox USING INDEX webhook_inbox_resource_id_kind \(resource_id=\?\)/,
      );
      expect(plan).toMatch(
        /SEARCH webhook_inbox USING INDEX webhook_inbox_reference_only \(resource_reference=\?\)/,
      );
    } else {
      expect(plan).toMatch(/webhook_inbox_resource_id_kind/);
      expect(plan).toMatch(/webhook_inbox_reference_only/);
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('the close of rows named by reference alone uses the partial index of references', async () => {
    const resources = [{ kind: 'transfer' as const, reference: 'ref-1' }];
    const statements = await statementsOf(database, async (db) => {
      await syncStatements(db, resources);
      await inboxMentionedResources(db, 'transfer', [{ id: 'tr_9', reference: 'ref-1' }]);
    });
    // The mention check asks by reference only for an id no row named: two statements.
    expect(statements).toHaveLength(4);
    for (const statement of statements.filter((s) => s.sql.includes('resource_reference'))) {
      const plan = await planOf(database, statement);
      if (testDialect() === 'sqlite') expect(plan).toMatch(/INDEX webhook_inbox_reference_only/);
      else expect(plan).toMatch(/webhook_inbox_reference_only/);
    }
  });

  it("the pipeline page's processed count reads one range of processed_at", async () => {
    const [count] = await statementsOf(database, (db) =>
      inboxCountSince(db, 'processed', iso(NOW - 3_600_000)),
    );
    const plan = await planOf(database, count!);
    if (testDialect() === 'sqlite') {
      expect(plan).toMatch(
        /SEARCH webhook_inbox USING INDEX webhook_inbox_processed_at \(processed_at>\?\)/,
      );
    } else {
      expect(plan).toMatch(
        /(Index (Only )?Scan using|Bitmap Index Scan on) webhook_inbox_processed_at/,
      );
      expect(plan).toMatch(/Index Cond: \(processed_at >= /);
    }
  });

  it('counts only the rows processed since the instant, not those unclassified or failed', async () => {
    // Rows 295..299 were processed in the last 5 hours; the other statuses 5 minutes ago.
    expect(await inboxCountSince(database.db, 'processed', iso(NOW - 5 * 3_600_000))).toBe(5);
    expect(await inboxCountSince(database.db, 'processed', iso(NOW - 10 * 60_000))).toBe(0);
    expect(await inboxCountSince(database.db, 'received', iso(NOW - 15 * 60_000))).toBe(4);
  });
});
