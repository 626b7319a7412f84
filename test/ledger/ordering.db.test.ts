import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openDiscrepancies, settlementJournalCount } from '../../src/ledger/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { at, kindFixtures, ledgerSnapshot, seen } from './support/ledger-fixtures.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

describe(`ordering and replays on ${testDialect()}`, () => {
  test.each(kindFixtures)('$kind: replaying the same state changes no row', async (fixture) => {
    const db = database.db;
    await fixture.apply(db, fixture.openStatus, at(1));
    const first = await fixture.apply(db, 'successful', at(2));
    expect(first.journalsPosted).toHaveLength(1);
    const before = await ledgerSnapshot(db);

    const replay = await db.transaction().execute((trx) => fixture.apply(trx, 'successful', at(2)));

    expect(replay).toMatchObject({
      changed: false,
      stale: false,
      status: 'successful',
      journalsPosted: [],
      discrepancies: [],
    });
    expect(await ledgerSnapshot(db)).toEqual(before);
    expect(await settlementJournalCount(db, fixture.kind, fixture.id)).toBe(1);
  });

  test.each(kindFixtures)(
    '$kind: an older updatedAt never overwrites a newer one',
    async (fixture) => {
      const db = database.db;
      await fixture.apply(db, 'successful', at(5));
      const late = await fixture.apply(
        db,
        fixture.openStatus,
        at(3),
        seen({ observedAt: '2026-03-01T12:00:00.000Z' }),
      );

      expect(late).toMatchObject({
        changed: false,
        stale: true,
        status: 'successful',
        journalsPosted: [],
      });
      const view = await findResource(db, fixture.id, { kind: fixture.kind });
      expect(view?.record).toMatchObject({
        status: 'successful',
        upstreamStatus: 'successful',
        updatedAt: at(5),
      });
      // A stale answer is still a sync: the mirror notes when it last heard from the service.
      expect(view?.record.lastSyncedAt).toBe('2026-03-01T12:00:00.000Z');
      expect(view?.history.map((h) => h.toStatus)).toEqual(['successful']);
      expect(await openDiscrepancies(db)).toEqual([]);
    },
  );

  test.each(kindFixtures)(
    '$kind: deliveries in reverse order end in the same books',
    async (fixture) => {
      const db = database.db;
      // The settled state arrives first; the open states that preceded it arrive afterwards.
      await fixture.apply(db, 'successful', at(3));
      await fixture.apply(db, fixture.openStatus, at(2));
      await fixture.apply(db, fixture.openStatus, at(1));
      const view = await findResource(db, fixture.id, { kind: fixture.kind });
      expect(view?.record.status).toBe('successful');
      expect(view?.journals.map((j) => j.settlementKey)).toEqual(['settlement-1']);
    },
  );

  test('equal updatedAt with the same status is a no-op; with another status a discrepancy', async () => {
    const fixture = kindFixtures.find((f) => f.kind === 'transfer')!;
    const db = database.db;
    await fixture.apply(db, 'pending', at(4));
    const before = await ledgerSnapshot(db);
    expect(await fixture.apply(db, 'pending', at(4))).toMatchObject({
      changed: false,
      stale: false,
    });
    expect(await ledgerSnapshot(db)).toEqual(before);

    const conflict = await fixture.apply(db, 'successful', at(4));
    expect(conflict).toMatchObject({ changed: false, status: 'pending', journalsPosted: [] });
    expect(conflict.discrepancies.map((d) => d.kind)).toEqual(['same_version_conflict']);
    expect((await fixture.apply(db, 'successful', at(4))).discrepancies).toEqual([]);
  });

  test('times with and without milliseconds compare as the same instant', async () => {
    const fixture = kindFixtures.find((f) => f.kind === 'payment_intent')!;
    const db = database.db;
    await fixture.apply(db, 'successful', '2026-03-01T10:00:05.000Z');
    const again = await fixture.apply(db, 'successful', '2026-03-01T10:00:05Z');
    expect(again).toMatchObject({ changed: false, stale: false });
  });

  test('status history records from, to, via and inbox id of each change', async () => {
    const fixture = kindFixtures.find((f) => f.kind === 'transfer')!;
    const db = database.db;
    await fixture.apply(
      db,
      'pending',
      at(1),
      seen({ via: 'poll', observedAt: '2026-03-01T10:00:01.500Z' }),
    );
    await fixture.apply(db, 'pending', at(2), seen({ via: 'webhook', inboxId: 7 }));
    await fixture.apply(
      db,
      'successful',
      at(3),
      seen({ via: 'webhook', inboxId: 8, observedAt: '2026-03-01T10:00:03.250Z' }),
    );
    const view = await findResource(db, 'tr_1');
    expect(view?.history).toEqual([
      {
        fromStatus: null,
        toStatus: 'pending',
        via: 'poll',
        inboxId: null,
        observedAt: '2026-03-01T10:00:01.500Z',
        serviceUpdatedAt: at(1),
      },
      {
        fromStatus: 'pending',
        toStatus: 'successful',
        via: 'webhook',
        inboxId: 8,
        observedAt: '2026-03-01T10:00:03.250Z',
        serviceUpdatedAt: at(3),
      },
    ]);
    expect(view?.journals[0]).toMatchObject({ via: 'webhook', inboxId: 8, effectiveAt: at(3) });
  });
});
