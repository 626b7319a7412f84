import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
// Ajv 6 (through eslint), as test/ops/support/openapi-validator.ts uses: the document is
// draft-07, which it reads.
import Ajv from 'ajv';
import type { Database } from '../../../src/db/index.ts';
import { relayMessageBody } from '../../../src/relay/index.ts';

const DOCUMENT_PATH = resolve(import.meta.dirname, '../../../docs/relay-events.schema.json');

export const relayDocument = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as {
  definitions: Record<string, unknown>;
};

const ajv = new Ajv({ allErrors: true, unknownFormats: 'ignore' });
ajv.addSchema(relayDocument as object, 'relay');

/** The problems of a relayed message against the published schema of its type (empty: none). */
export function messageProblems(message: {
  readonly type: string;
  readonly [key: string]: unknown;
}): string[] {
  if (!relayDocument.definitions[message.type]) return [`${message.type} is not in the document`];
  const validate = ajv.compile({ $ref: `relay#/definitions/${message.type}` });
  if (validate(message)) return [];
  return (validate.errors ?? []).map((e) => `${message.type}${e.dataPath} ${e.message ?? ''}`);
}

export interface StoredEvent {
  readonly id: number;
  readonly eventId: string;
  readonly type: string;
  readonly subject: string | null;
  readonly dedupeKey: string;
  /** The body a delivery sends, parsed. */
  readonly message: {
    id: string;
    type: string;
    timestamp: string;
    environment: string;
    data: Record<string, unknown>;
  };
}

/** Every event in the books, in order of emission. */
export async function storedEvents(db: Kysely<Database>): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('relay_events').selectAll().orderBy('id').execute();
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    type: row.type,
    subject: row.subject,
    dedupeKey: row.dedupe_key,
    message: JSON.parse(relayMessageBody(row)) as StoredEvent['message'],
  }));
}

/** Adds an endpoint row as `paysync endpoints add` would (src/relay/manage-endpoints.ts does it for real). */
export async function addEndpointRow(
  db: Kysely<Database>,
  input: { endpointId: string; eventTypes: string[] | null; status?: 'enabled' | 'disabled' },
): Promise<number> {
  const at = new Date().toISOString();
  const row = await db
    .insertInto('relay_endpoints')
    .values({
      endpoint_id: input.endpointId,
      url: `https://example.test/${input.endpointId}`,
      description: null,
      event_types: input.eventTypes === null ? null : JSON.stringify(input.eventTypes),
      secret: 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC0xMjM0',
      previous_secret: null,
      previous_secret_expires_at: null,
      status: input.status ?? 'enabled',
      disabled_reason: input.status === 'disabled' ? 'by hand' : null,
      disabled_at: input.status === 'disabled' ? at : null,
      failing_since: null,
      last_success_at: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The deliveries of each endpoint (by numeric id): the types of their events, in order. */
export async function deliveredTypes(db: Kysely<Database>): Promise<Map<number, string[]>> {
  const rows = await db
    .selectFrom('relay_deliveries')
    .innerJoin('relay_events', 'relay_events.id', 'relay_deliveries.event_id')
    .select([
      'relay_deliveries.endpoint_id as endpoint',
      'relay_events.type as type',
      'relay_deliveries.state as state',
    ])
    .orderBy('relay_deliveries.endpoint_id')
    .orderBy('relay_deliveries.event_id')
    .execute();
  const byEndpoint = new Map<number, string[]>();
  for (const row of rows) {
    if (row.state !== 'pending') throw new Error(`a new delivery is ${row.state}`);
    byEndpoint.set(row.endpoint, [...(byEndpoint.get(row.endpoint) ?? []), row.type]);
  }
  return byEndpoint;
}
