import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  inboxMentionsResource,
  insertInboxEvent,
  recordInboxResource,
  type ResourceHandle,
} from '../../src/inbox/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

async function receive(key: string, resource: ResourceHandle): Promise<void> {
  const { inboxId } = await insertInboxEvent(database.db, {
    dedupeKey: `event:${key}`,
    eventId: key,
    eventType: `${resource.kind}.updated`,
    rawBody: Buffer.from(`{"id":"${key}"}`),
    headers: {},
    receivedAt: new Date(),
  });
  await recordInboxResource(database.db, inboxId, resource);
}

describe(`inboxMentionsResource, on ${testDialect()}`, () => {
  it('finds a mention by id, or by reference on a row that names no id, of the same kind', async () => {
    await receive('a', { kind: 'transfer', id: 'tr_1', reference: 'ref-1' });
    await receive('b', { kind: 'transfer', reference: 'ref-2' });
    await receive('c', { kind: 'payment_intent', id: 'pi_1' });
    const mentions = (resource: { kind: string; id: string; reference?: string }) =>
      inboxMentionsResource(database.db, resource);
    expect(await mentions({ kind: 'transfer', id: 'tr_1' })).toBe(true);
    expect(await mentions({ kind: 'transfer', id: 'tr_1', reference: 'other' })).toBe(true);
    expect(await mentions({ kind: 'transfer', id: 'tr_2', reference: 'ref-2' })).toBe(true);
    expect(await mentions({ kind: 'transfer', id: 'tr_2' })).toBe(false);
    expect(await mentions({ kind: 'transfer', id: 'tr_2', reference: 'ref-3' })).toBe(false);
    expect(await mentions({ kind: 'transfer', id: 'pi_1' })).toBe(false);
    expect(await mentions({ kind: 'payment_intent', id: 'pi_1' })).toBe(true);
  });

  it.skipIf(testDialect() !== 'sqlite')(
    'runs only statements an index serves on more than the kind (a sweep asks it per item)',
    async () => {
      await receive('a', { kind: 'transfer', id: 'tr_1', reference: 'ref-1' });
      const nodes: RootOperationNode[] = [];
      const capture: KyselyPlugin = {
        transformQuery: (args) => {
          nodes.push(args.node);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      await inboxMentionsResource(database.db.withPlugin(capture), {
        kind: 'transfer',
        id: 'tr_2',
        reference: 'ref-2',
      });
      expect(nodes.length).toBeGreaterThan(0);
      for (const node of nodes) {
        const compiled = database.db.getExecutor().compileQuery(node, { queryId: 'plan' });
        const plan = await database.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        const details = plan.rows.map((row) => row.detail).join('; ');
        // Served on more than the kind: the (id, kind) index, or the reference's own index.
        expect(details).toMatch(
          /USING (COVERING )?INDEX \S+ \((resource_id=\? AND resource_kind|resource_reference=\?)/,
        );
      }
    },
  );
});
