import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { expectation } from './match-fixtures.ts';
import { insertExpectation } from './support/matching-rows.ts';

/** Issue 40.10: `expect report` takes windows ending at the end of its last day; a real header. */
let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabase();
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_BOOKS_TIMEZONE: 'UTC' };
  // `window_to: 2026-03-04` in a file resolves to the end of that day: the next midnight.
  const { id: _id, ...endOfDay } = expectation({
    expectation_id: 'rent-march',
    window_to: '2026-03-05T00:00:00.000Z',
  });
  await insertExpectation(database.db, endOfDay);
  // One that ends at the first instant of 2026-03-04 belongs to 2026-03-03.
  const { id: _id2, ...startOfDay } = expectation({
    expectation_id: 'dues-march',
    window_to: '2026-03-04T00:00:00.000Z',
  });
  await insertExpectation(database.db, startOfDay);
});
afterAll(async () => {
  await database?.cleanup();
});

interface PeriodJson {
  states: { state: string; count: number }[];
}

const dueCount = (json: string) =>
  (JSON.parse(json) as PeriodJson).states.reduce((sum, s) => sum + s.count, 0);

describe(`expectations for a newcomer on ${testDialect()}`, () => {
  it('expect report --from D --to D includes a window ending at the end of D, and only on D', async () => {
    const day = await runCliInProcess(
      ['expect', 'report', '--from', '2026-03-04', '--to', '2026-03-04', '--json'],
      { env },
    );
    expect(day.code).toBe(0);
    expect(dueCount(day.stdout)).toBe(1);
    const dayBefore = await runCliInProcess(
      ['expect', 'report', '--from', '2026-03-03', '--to', '2026-03-03', '--json'],
      { env },
    );
    expect(dueCount(dayBefore.stdout)).toBe(1);
    const dayAfter = await runCliInProcess(
      ['expect', 'report', '--from', '2026-03-05', '--to', '2026-03-05', '--json'],
      { env },
    );
    expect(dueCount(dayAfter.stdout)).toBe(0);
  });

  it('expect list heads the version column VERSION, not V', async () => {
    const listed = await runCliInProcess(['expect', 'list'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +DIR +AMOUNT +WINDOW FROM +WINDOW TO .* VERSION$/m);
    expect(listed.stdout).not.toMatch(/ V$/m);
  });
});
