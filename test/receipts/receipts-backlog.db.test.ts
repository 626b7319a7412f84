import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToOutbox, markOutboxConsumed, outboxBacklog } from '../../src/outbox/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  const rows = [
    ['receipt', 'tr_1', '2026-11-28T10:00:00.000Z'],
    ['receipt', 'tr_2', '2026-11-28T10:00:01.000Z'],
    ['receipt', 'pi_3', '2026-11-28T10:00:02.000Z'],
    ['alert', 'tr_9', '2026-11-28T10:00:03.000Z'],
  ] as const;
  const ids: number[] = [];
  for (const [kind, id, createdAt] of rows) {
    const added = await addToOutbox(database.db, {
      kind,
      dedupeKey: `${kind}:${id}`,
      payload: { kind: id.startsWith('tr_') ? 'transfer' : 'payment_intent', id },
      createdAt,
    });
    ids.push(added.id);
  }
  // The first receipt is archived: it no longer waits.
  await markOutboxConsumed(database.db, ids[0]!, '2026-11-28T10:01:00.000Z');
});
afterAll(async () => {
  await database?.cleanup();
});

describe(`the receipts' backlog behind the books, on ${testDialect()}`, () => {
  it('counts the follow-ups not consumed yet, by kind, with the oldest', async () => {
    expect(await outboxBacklog(database.db)).toEqual([
      { kind: 'alert', waiting: 1, oldestAt: '2026-11-28T10:00:03.000Z' },
      { kind: 'receipt', waiting: 2, oldestAt: '2026-11-28T10:00:01.000Z' },
    ]);
  });

  it('`paysync receipts backlog` says it in lines, and in JSON with --json', async () => {
    const env = { PAYSYNC_DATABASE_URL: database.url };
    const lines = await runCliInProcess(['receipts', 'backlog'], { env });
    expect(lines.code).toBe(0);
    expect(lines.stdout).toContain('alerts waiting: 1 (oldest since 2026-11-28T10:00:03.000Z)');
    expect(lines.stdout).toContain('receipts waiting: 2 (oldest since 2026-11-28T10:00:01.000Z)');
    const json = await runCliInProcess(['receipts', 'backlog', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      { kind: 'alert', waiting: 1, oldestAt: '2026-11-28T10:00:03.000Z' },
      { kind: 'receipt', waiting: 2, oldestAt: '2026-11-28T10:00:01.000Z' },
    ]);
  });
});
