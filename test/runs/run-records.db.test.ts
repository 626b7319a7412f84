import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  recentRuns,
  recordScheduledRun,
  taskHealth,
  type RunRecordDependencies,
} from '../../src/runs/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { until } from '../support/until.ts';

const logger = pino({ level: 'silent' });

/** Section 1: every run leaves an honest record; a slot runs once; dead runs are found. */
describe(`scheduled run records on ${testDialect()}`, () => {
  let database: TestDatabase;
  let deps: RunRecordDependencies;

  beforeEach(async () => {
    database = await freshDatabase();
    deps = { db: database.db, logger, staleRunAfterMs: 1_000, now: () => new Date() };
  });
  afterEach(async () => {
    await database.cleanup();
  });

  it('records a finished run as succeeded, with its counts and checkpoint', async () => {
    const result = await recordScheduledRun(
      deps,
      { task: 'sweep', slot: '2030-01-01T10:00:00.000Z' },
      async (run) => {
        run.count({ itemsSeen: 120, itemsChanged: 7, itemsMissed: 2, pagesRead: 2 });
        run.count({ upstreamCalls: 3 });
        run.checkpoint('intents 2030-01-01T10:00:00.000Z');
        return 'done';
      },
    );
    expect(result).toMatchObject({ outcome: 'succeeded', value: 'done' });
    const [run] = await recentRuns(database.db);
    expect(run).toMatchObject({
      task: 'sweep',
      slot: '2030-01-01T10:00:00.000Z',
      attempt: 1,
      trigger: 'schedule',
      outcome: 'succeeded',
      itemsSeen: 120,
      itemsChanged: 7,
      itemsMissed: 2,
      pagesRead: 2,
      upstreamCalls: 3,
      checkpoint: 'intents 2030-01-01T10:00:00.000Z',
      error: null,
    });
    expect(run!.finishedAt).not.toBeNull();
  });

  it('a run cut short is partial and a run that throws is failed, never succeeded', async () => {
    await recordScheduledRun(deps, { task: 'sweep', slot: 's1' }, async (run) => {
      run.count({ itemsSeen: 50 });
      run.cutShort('transfers: listTransfers: throttled by the service (429)');
    });
    await recordScheduledRun(deps, { task: 'sweep', slot: 's2' }, async () => {
      throw new Error('database is locked');
    });
    const runs = await recentRuns(database.db, { task: 'sweep' });
    const bySlot = Object.fromEntries(runs.map((r) => [r.slot, r]));
    expect(bySlot.s1).toMatchObject({ outcome: 'partial', itemsSeen: 50 });
    expect(bySlot.s1!.error).toContain('429');
    expect(bySlot.s2).toMatchObject({ outcome: 'failed', error: 'database is locked' });
  });

  it('runs each slot once: a second run of the same slot, even at the same time, is skipped', async () => {
    const slot = '2030-01-01T10:05:00.000Z';
    let ran = 0;
    const work = async () => {
      ran += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const results = await Promise.all([
      recordScheduledRun(deps, { task: 'sweep', slot }, work),
      recordScheduledRun(deps, { task: 'sweep', slot }, work),
    ]);
    const later = await recordScheduledRun(deps, { task: 'sweep', slot }, work);
    expect(results.map((r) => r.outcome).sort()).toEqual(['skipped', 'succeeded']);
    expect(later.outcome).toBe('skipped');
    expect(ran).toBe(1);
    expect(await recentRuns(database.db)).toHaveLength(1);
  });

  it('the next run of a task marks a run whose worker died as failed', async () => {
    const t0 = Date.parse('2030-01-01T10:00:00.000Z');
    let clock = t0;
    const timed = { ...deps, now: () => new Date(clock) };
    // A worker that dies mid-run never finishes its record, nor beats again: simulate it by never
    // resolving, on a clock that stays at t0 (a heartbeat on the moved clock, 250 ms later, would
    // make it look alive to the run below on a slow machine).
    const dead = { ...deps, now: () => new Date(t0) };
    void recordScheduledRun(dead, { task: 'sweep', slot: 'dead' }, () => new Promise(() => {}));
    await until(async () => (await recentRuns(database.db)).find((r) => r.slot === 'dead'), {
      message: 'the run of slot dead recorded',
    });
    expect((await recentRuns(database.db))[0]).toMatchObject({ slot: 'dead', outcome: 'running' });

    clock = t0 + 60_000;
    // Another task's run does not touch it.
    await recordScheduledRun(timed, { task: 'recover-inbox', slot: 'x' }, async () => undefined);
    const next = await recordScheduledRun(timed, { task: 'sweep', slot: 'next' }, async () => 1);
    expect(next.deadRunsFailed).toBe(1);
    const runs = Object.fromEntries((await recentRuns(database.db)).map((r) => [r.slot, r]));
    expect(runs.dead).toMatchObject({ outcome: 'failed' });
    expect(runs.dead!.error).toContain('stopped without finishing');
    expect(runs.next).toMatchObject({ outcome: 'succeeded' });
  });

  it('a slot whose run died is taken over by a new attempt', async () => {
    const t0 = Date.parse('2030-01-01T10:00:00.000Z');
    let clock = t0;
    const timed = { ...deps, now: () => new Date(clock) };
    // The dead run's heartbeat stays at t0, as a dead worker's would (see the test above).
    const dead = { ...deps, now: () => new Date(t0) };
    void recordScheduledRun(dead, { task: 'sweep', slot: 's' }, () => new Promise(() => {}));
    await until(async () => (await recentRuns(database.db)).find((r) => r.slot === 's'), {
      message: 'the run of slot s recorded',
    });
    clock += 60_000;
    const retry = await recordScheduledRun(timed, { task: 'sweep', slot: 's' }, async () => 1);
    expect(retry.outcome).toBe('succeeded');
    const runs = await recentRuns(database.db, { task: 'sweep' });
    expect(runs.map((r) => [r.attempt, r.outcome]).sort()).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
  });

  it('doctor: a task that has not succeeded for more than three intervals is flagged', async () => {
    const at = (iso: string) => ({ ...deps, now: () => new Date(iso) });
    await recordScheduledRun(
      at('2030-01-01T10:00:00.000Z'),
      { task: 'sweep', slot: 'a' },
      async () => 1,
    );
    for (const minute of ['05', '10', '15', '20']) {
      await recordScheduledRun(
        at(`2030-01-01T10:${minute}:00.000Z`),
        { task: 'sweep', slot: minute },
        async (run) => run.cutShort('429'),
      );
    }
    const tasks = [
      { task: 'sweep', cron: '*/5 * * * *' },
      { task: 'recover-inbox', cron: '* * * * *' },
      { task: 'janitor', cron: 'off' },
    ];
    const early = await taskHealth(database.db, tasks, new Date('2030-01-01T10:14:00.000Z'));
    expect(early.find((t) => t.task === 'sweep')).toMatchObject({ ok: true });
    const late = await taskHealth(database.db, tasks, new Date('2030-01-01T10:21:00.000Z'));
    const sweep = late.find((t) => t.task === 'sweep');
    expect(sweep).toMatchObject({ ok: false });
    expect(sweep!.detail).toContain('no success since 2030-01-01T10:00:00.000Z');
    expect(sweep!.detail).toContain('last run partial');
    expect(late.find((t) => t.task === 'recover-inbox')).toMatchObject({ ok: true });
    expect(late.find((t) => t.task === 'janitor')).toBeUndefined();
  });
});
