import type { Executor } from '../db/index.ts';
import type { RelayEndpointRow } from './relay.tables.ts';

/**
 * An endpoint as paysync shows it (CLI, ops API, dashboard): everything but its secrets,
 * which are printed once, by `add` and `rotate-secret`, and never read back.
 */
export interface EndpointView {
  /** `ep_…` */
  readonly id: string;
  readonly url: string;
  readonly description: string | null;
  /** The subscribed type patterns; null: every type. */
  readonly events: readonly string[] | null;
  /** `enabled` or `disabled`. */
  readonly status: 'enabled' | 'disabled';
  /** `operator` when disabled by hand; the deliverer's own on a 410 or failing too long; null when enabled. */
  readonly disabledReason: string | null;
  readonly disabledAt: string | null;
  /** Start of the current run of failed attempts; null after a success. */
  readonly failingSince: string | null;
  readonly lastSuccessAt: string | null;
  /** Until when the secret before the last rotation still signs too; null: one secret. */
  readonly previousSecretExpiresAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The row without its secrets, in the shape above. */
export function endpointView(row: RelayEndpointRow): EndpointView {
  return {
    id: row.endpoint_id,
    url: row.url,
    description: row.description,
    events: row.event_types === null ? null : (JSON.parse(row.event_types) as string[]),
    status: row.status === 'disabled' ? 'disabled' : 'enabled',
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    failingSince: row.failing_since,
    lastSuccessAt: row.last_success_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The endpoint's row by its public id (`ep_…`), or undefined. */
export async function findEndpointRow(
  db: Executor,
  endpointId: string,
): Promise<RelayEndpointRow | undefined> {
  return db
    .selectFrom('relay_endpoints')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/** Every endpoint, oldest first. */
export async function listEndpointRows(db: Executor): Promise<RelayEndpointRow[]> {
  return db.selectFrom('relay_endpoints').selectAll().orderBy('id').execute();
}

export interface NewEndpointRow {
  readonly endpointId: string;
  readonly url: string;
  readonly description: string | null;
  readonly events: readonly string[] | null;
  readonly secret: string;
  readonly at: string;
}

export async function insertEndpointRow(
  db: Executor,
  endpoint: NewEndpointRow,
): Promise<RelayEndpointRow> {
  await db
    .insertInto('relay_endpoints')
    .values({
      endpoint_id: endpoint.endpointId,
      url: endpoint.url,
      description: endpoint.description,
      event_types: endpoint.events === null ? null : JSON.stringify(endpoint.events),
      secret: endpoint.secret,
      previous_secret: null,
      previous_secret_expires_at: null,
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      last_success_at: null,
      created_at: endpoint.at,
      updated_at: endpoint.at,
    })
    .execute();
  return (await findEndpointRow(db, endpoint.endpointId))!;
}

/** The columns management changes (status, secrets); `updated_at` is set to `at`. */
export type EndpointChange = Partial<
  Pick<
    RelayEndpointRow,
    | 'status'
    | 'disabled_reason'
    | 'disabled_at'
    | 'failing_since'
    | 'secret'
    | 'previous_secret'
    | 'previous_secret_expires_at'
  >
>;

export async function updateEndpointRow(
  db: Executor,
  id: number,
  change: EndpointChange,
  at: string,
): Promise<void> {
  await db
    .updateTable('relay_endpoints')
    .set({ ...change, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** The endpoint, its deliveries and their attempts (the delivery log), in the caller's transaction. */
export async function deleteEndpointRows(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('relay_attempts').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('relay_deliveries').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('relay_endpoints').where('id', '=', id).execute();
}
