import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  cancelExpectation,
  listExpectations,
  parseExpectationInput,
  resolveBreak,
  resolveBreaks,
  resolveExpectation,
  showExpectation,
  upsertExpectations,
  type ExpectationContext,
  type ParsedExpectation,
} from '../../src/expectations/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { insertBreak } from './support/expectation-rows.ts';

let database: TestDatabase;
let clock = new Date('2030-01-10T08:00:00.000Z');
const ctx: ExpectationContext = { environment: 'sandbox', now: () => clock };
const origin = { source: 'cli', actor: 'alice' };

function parsed(change: Record<string, unknown> = {}): ParsedExpectation {
  const result = parseExpectationInput(
    {
      expectation_id: 'order-4711',
      direction: 'in',
      currency: 'XOF',
      amount: 25000,
      window_from: '2030-01-10',
      window_to: '2030-01-12',
      metadata: { customer: 'C-88' },
      ...change,
    },
    { timeZone: 'UTC' },
  );
  if (!result.ok) throw new Error(result.problem.reason);
  return result.value;
}

const rowOf = (id = 'order-4711') =>
  database.db
    .selectFrom('expectations')
    .selectAll()
    .where('expectation_id', '=', id)
    .executeTakeFirstOrThrow();
const historyOf = async (id = 'order-4711') =>
  (await showExpectation(database.db, 'sandbox', id)).history;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.cleanup();
});
beforeEach(async () => {
  await database.db.deleteFrom('expectation_breaks').execute();
  await database.db.deleteFrom('expectation_history').execute();
  await database.db.deleteFrom('expectations').execute();
  clock = new Date('2030-01-10T08:00:00.000Z');
});

describe('upsert by (environment, expectation id)', () => {
  it('creates an open row at version 1 with a created history row', async () => {
    expect(await upsertExpectations(database.db, ctx, [parsed()], origin)).toEqual(['created']);
    const row = await rowOf();
    expect(row).toMatchObject({
      environment: 'sandbox',
      state: 'open',
      version: 1,
      amount_min: 25000,
      amount_max: 25000,
      window_to: '2030-01-13T00:00:00.000Z',
      metadata: '{"customer":"C-88"}',
      allow_split: 0,
      created_at: '2030-01-10T08:00:00.000Z',
    });
    const history = await historyOf();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      version: 1,
      change: 'created',
      source: 'cli',
      actor: 'alice',
      before: null,
    });
    expect(history[0]!.after).toMatchObject({ expectation_id: 'order-4711', amount_min: 25000 });
  });

  it('the same content again changes nothing at all, not even updated_at', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    const before = await rowOf();
    clock = new Date('2030-01-11T08:00:00.000Z');
    expect(await upsertExpectations(database.db, ctx, [parsed()], origin)).toEqual(['unchanged']);
    expect(await rowOf()).toEqual(before);
    expect(await historyOf()).toHaveLength(1);
  });

  it('changed content: version + 1, history with before and after, the state kept', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    await database.db.updateTable('expectations').set({ state: 'matched' }).execute();
    clock = new Date('2030-01-11T08:00:00.000Z');
    expect(
      await upsertExpectations(database.db, ctx, [parsed({ amount: 26000 })], {
        source: 'import:orders.csv',
        actor: 'bob',
      }),
    ).toEqual(['updated']);
    const row = await rowOf();
    expect(row).toMatchObject({
      version: 2,
      state: 'matched',
      amount_min: 26000,
      updated_at: '2030-01-11T08:00:00.000Z',
      created_at: '2030-01-10T08:00:00.000Z',
    });
    const updated = (await historyOf())[1]!;
    expect(updated).toMatchObject({ version: 2, change: 'updated', source: 'import:orders.csv' });
    expect(updated.before).toMatchObject({ amount_min: 25000 });
    expect(updated.after).toMatchObject({ amount_min: 26000 });
  });

  it('the same id in another environment is another expectation', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    expect(
      await upsertExpectations(database.db, { ...ctx, environment: 'live' }, [parsed()], origin),
    ).toEqual(['created']);
  });
});

describe('list', () => {
  it('one state by window end (due first); all of them, the latest loaded first', async () => {
    await upsertExpectations(
      database.db,
      ctx,
      [
        parsed({ expectation_id: 'late-window', window_to: '2030-01-20' }),
        parsed({ expectation_id: 'early-window', window_to: '2030-01-11' }),
      ],
      origin,
    );
    await upsertExpectations(database.db, ctx, [parsed({ expectation_id: 'last' })], origin);
    await cancelExpectation(database.db, ctx, 'last', origin);
    const open = await listExpectations(database.db, 'sandbox', { state: 'open' });
    expect(open.map((e) => e.expectation_id)).toEqual(['early-window', 'late-window']);
    const all = await listExpectations(database.db, 'sandbox', { limit: 2 });
    expect(all.map((e) => e.expectation_id)).toEqual(['last', 'early-window']);
    expect(await listExpectations(database.db, 'live')).toEqual([]);
  });
});

describe('cancel', () => {
  it('cancels once, with the reason in the history; twice says so and changes nothing', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    const first = await cancelExpectation(database.db, ctx, 'order-4711', {
      ...origin,
      reason: 'customer cancelled',
    });
    expect(first.outcome).toBe('cancelled');
    expect(first.expectation.state).toBe('cancelled');
    const row = await rowOf();
    clock = new Date('2030-01-12T08:00:00.000Z');
    const second = await cancelExpectation(database.db, ctx, 'order-4711', origin);
    expect(second.outcome).toBe('already_cancelled');
    expect(await rowOf()).toEqual(row);
    const history = await historyOf();
    expect(history.map((h) => h.change)).toEqual(['created', 'cancelled']);
    expect(history[1]!.after).toEqual({ state: 'cancelled', reason: 'customer cancelled' });
  });

  it('an unknown id is not_found', async () => {
    await expect(cancelExpectation(database.db, ctx, 'nope', origin)).rejects.toMatchObject({
      code: 'not_found',
      refusal: { code: 'expectation_not_found', expectationId: 'nope', environment: 'sandbox' },
    });
  });
});

describe('manual resolution', () => {
  it('resolves an expectation and its open breaks with who, when and why', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    const id = Number((await rowOf()).id);
    await insertBreak(database.db, { expectation: id, kind: 'missing' });
    const result = await resolveExpectation(database.db, ctx, 'order-4711', {
      reason: 'paid in cash',
      by: 'carol',
      source: 'cli',
    });
    expect(result).toMatchObject({ outcome: 'resolved', breaksResolved: 1 });
    expect(await rowOf()).toMatchObject({
      state: 'resolved_manually',
      resolved_by: 'carol',
      resolved_at: '2030-01-10T08:00:00.000Z',
      resolution_reason: 'paid in cash',
    });
    const detail = await showExpectation(database.db, 'sandbox', 'order-4711');
    expect(detail.breaks[0]).toMatchObject({
      state: 'resolved',
      resolved_by: 'carol',
      resolution_reason: 'paid in cash',
    });
    expect(detail.history.map((h) => [h.change, h.actor])).toEqual([
      ['created', 'alice'],
      ['resolved', 'carol'],
    ]);
    const again = await resolveExpectation(database.db, ctx, 'order-4711', {
      reason: 'again',
      by: 'dave',
      source: 'cli',
    });
    expect(again.outcome).toBe('already_resolved');
    expect((await rowOf()).resolved_by).toBe('carol');
  });

  it('a reason is required; a cancelled expectation cannot be resolved', async () => {
    await upsertExpectations(database.db, ctx, [parsed()], origin);
    await expect(
      resolveExpectation(database.db, ctx, 'order-4711', { reason: '  ', by: 'x', source: 'cli' }),
    ).rejects.toMatchObject({ code: 'bad_input', refusal: { code: 'reason_required' } });
    await cancelExpectation(database.db, ctx, 'order-4711', origin);
    await expect(
      resolveExpectation(database.db, ctx, 'order-4711', { reason: 'r', by: 'x', source: 'cli' }),
    ).rejects.toMatchObject({
      code: 'not_resolvable',
      refusal: { code: 'expectation_cancelled', expectationId: 'order-4711' },
    });
    expect((await rowOf()).state).toBe('cancelled');
  });

  it('resolves one break by id, and says when it already was', async () => {
    const breakId = await insertBreak(database.db, { kind: 'unexpected' });
    const first = await resolveBreak(database.db, ctx, breakId, {
      reason: 'owner top-up',
      by: 'eve',
    });
    expect(first.outcome).toBe('resolved');
    expect(first.break).toMatchObject({ state: 'resolved', resolved_by: 'eve' });
    const second = await resolveBreak(database.db, ctx, breakId, { reason: 'x', by: 'frank' });
    expect(second.outcome).toBe('already_resolved');
    expect(second.break.resolved_by).toBe('eve');
    await expect(
      resolveBreak(database.db, ctx, breakId + 1000, { reason: 'x', by: 'x' }),
    ).rejects.toMatchObject({
      code: 'not_found',
      refusal: { code: 'break_not_found', breakId: breakId + 1000 },
    });
  });

  it('bulk: by kind, |difference|, currency and detection window; says how many and which', async () => {
    const small = await insertBreak(database.db, { kind: 'amount_mismatch', difference: -5 });
    const smallUp = await insertBreak(database.db, { kind: 'amount_mismatch', difference: 3 });
    await insertBreak(database.db, { kind: 'amount_mismatch', difference: 6 });
    await insertBreak(database.db, { kind: 'amount_mismatch', difference: 2, currency: 'EUR' });
    await insertBreak(database.db, {
      kind: 'amount_mismatch',
      difference: 1,
      detectedAt: '2030-02-01T00:00:00.000Z',
    });
    await insertBreak(database.db, { kind: 'late', difference: null });
    await insertBreak(database.db, { kind: 'amount_mismatch', difference: 1, environment: 'live' });
    const filter = {
      kind: 'amount_mismatch' as const,
      maxDifference: 5,
      currency: 'XOF',
      from: '2030-01-01T00:00:00.000Z',
      to: '2030-01-31T00:00:00.000Z',
    };
    const dry = await resolveBreaks(database.db, ctx, filter, {
      reason: 'rounding',
      by: 'gina',
      dryRun: true,
    });
    expect(dry).toMatchObject({ count: 2, dryRun: true });
    expect(dry.breaks.map((b) => [b.id, b.state])).toEqual([
      [small, 'open'],
      [smallUp, 'open'],
    ]);
    const open = await database.db
      .selectFrom('expectation_breaks')
      .select('id')
      .where('state', '=', 'open')
      .execute();
    expect(open).toHaveLength(7);

    const done = await resolveBreaks(database.db, ctx, filter, { reason: 'rounding', by: 'gina' });
    expect(done.count).toBe(2);
    expect(done.breaks.map((b) => b.id)).toEqual([small, smallUp]);
    const resolved = await database.db
      .selectFrom('expectation_breaks')
      .select(['id', 'resolved_by', 'resolution_reason', 'resolved_at'])
      .where('state', '=', 'resolved')
      .orderBy('id')
      .execute();
    expect(resolved).toEqual([
      {
        id: small,
        resolved_by: 'gina',
        resolution_reason: 'rounding',
        resolved_at: clock.toISOString(),
      },
      {
        id: smallUp,
        resolved_by: 'gina',
        resolution_reason: 'rounding',
        resolved_at: clock.toISOString(),
      },
    ]);
    // Run again: nothing left to resolve.
    expect((await resolveBreaks(database.db, ctx, filter, { reason: 'r', by: 'g' })).count).toBe(0);
    await expect(
      resolveBreaks(database.db, ctx, filter, { reason: '', by: 'g' }),
    ).rejects.toMatchObject({ code: 'bad_input', refusal: { code: 'reason_required' } });
  });
});
