import type { Job } from 'bullmq';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectationsJob } from '../../jobs/expectations.job.ts';
import type { JobContext } from '../../jobs/job-context.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { ScheduledJobData } from '../../src/queues/index.ts';
import { recentRuns } from '../../src/runs/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { expectation, item, NOW } from './match-fixtures.ts';
import {
  ENVIRONMENT,
  insertExpectation,
  matchingSnapshot,
  settle,
} from './support/matching-rows.ts';

const fields = (overrides: Parameters<typeof expectation>[0] = {}) => {
  const { id: _id, ...rest } = expectation(overrides);
  return rest;
};

/**
 * The scheduled task `expectations`, as a worker runs it: open expectations whose window has
 * passed become `overdue` with a `missing` break, and the run record counts them.
 */
describe(`the expectations task on ${testDialect()}`, () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    await database.cleanup();
  });

  function tick(slot: string) {
    const context = {
      db: database.db,
      logger: pino({ level: 'silent' }),
      now: () => new Date(NOW),
      polling: loadConfig({}).polling,
      environment: ENVIRONMENT,
      expectations: loadConfig({}).expectations,
    } as unknown as JobContext;
    const data: ScheduledJobData = { task: 'expectations', slot };
    return expectationsJob(context)({ data } as Job<ScheduledJobData>);
  }

  it('marks the unpaid one past its window overdue with a missing break; records the run', async () => {
    const unpaid = await insertExpectation(
      database.db,
      fields({ expectation_id: 'E-unpaid', window_to: '2026-03-09T00:00:00.000Z' }),
    );
    // Its item settled, but nothing matched it yet: the check matches it instead.
    await settle(database.db, item({ id: 'tr_1', reference: 'pay-1' }));
    const paid = await insertExpectation(
      database.db,
      fields({
        expectation_id: 'E-paid',
        reference: 'pay-1',
        window_to: '2026-03-09T00:00:00.000Z',
      }),
    );
    const current = await insertExpectation(database.db, fields({ expectation_id: 'E-current' }));

    await tick(NOW);

    const seen = await matchingSnapshot(database.db);
    expect(seen.states.map((s) => [s.id, s.state])).toEqual([
      [unpaid, 'overdue'],
      [paid, 'matched'],
      [current, 'open'],
    ]);
    expect(seen.breaks).toEqual([
      expect.objectContaining({
        dedupe_key: `missing:${unpaid}:-`,
        kind: 'missing',
        difference: -25000,
      }),
    ]);
    expect(seen.breaks[0]!.explanation).toContain('Expectation E-unpaid expected 25,000 XOF');
    const [run] = await recentRuns(database.db, { task: 'expectations' });
    expect(run).toMatchObject({
      trigger: 'schedule',
      outcome: 'succeeded',
      itemsSeen: 2,
      itemsChanged: 1,
      checkpoint: 'checked 2 past their window; 1 overdue',
    });

    // The next tick finds nothing open past its window: nothing changes.
    await tick('2026-03-10T00:05:00.000Z');
    expect(await matchingSnapshot(database.db)).toEqual(seen);
    const [next] = await recentRuns(database.db, { task: 'expectations' });
    expect(next).toMatchObject({ outcome: 'succeeded', itemsSeen: 0, itemsChanged: 0 });
  });
});
