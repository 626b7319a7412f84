import type { Executor } from '../ledger/index.ts';

export interface PollingCheckpoint {
  readonly stream: string;
  /** Every item of the stream created before this (UTC ISO 8601, exclusive) is applied. */
  readonly position: string;
  readonly detail: unknown;
  readonly updatedAt: string;
}

export async function readCheckpoint(
  db: Executor,
  stream: string,
): Promise<PollingCheckpoint | undefined> {
  const row = await db
    .selectFrom('polling_checkpoints')
    .selectAll()
    .where('stream', '=', stream)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    stream: row.stream,
    position: row.position,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as unknown),
    updatedAt: row.updated_at,
  };
}

/**
 * Moves a checkpoint forward, never back: two overlapping runs of one stream may finish in
 * any order, and the earlier position must not win. Call inside the transaction of the
 * items it covers.
 */
export async function advanceCheckpoint(
  db: Executor,
  checkpoint: { stream: string; position: string; detail?: unknown; at: string },
): Promise<void> {
  const detail = checkpoint.detail === undefined ? null : JSON.stringify(checkpoint.detail);
  await db
    .insertInto('polling_checkpoints')
    .values({
      stream: checkpoint.stream,
      position: checkpoint.position,
      detail,
      updated_at: checkpoint.at,
    })
    .onConflict((oc) =>
      oc
        .column('stream')
        .doUpdateSet({ position: checkpoint.position, detail, updated_at: checkpoint.at })
        .where('polling_checkpoints.position', '<=', checkpoint.position),
    )
    .execute();
}

/** Forgets a checkpoint (`paysync backfill --restart`). */
export async function deleteCheckpoint(db: Executor, stream: string): Promise<void> {
  await db.deleteFrom('polling_checkpoints').where('stream', '=', stream).execute();
}
