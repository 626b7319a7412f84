import { closeCoveredInboxRows, noteInboxError } from '../inbox/index.ts';
import { recordDiscrepancy, type DiscrepancySummary } from '../ledger/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import {
  ContractError,
  NotFoundError,
  UpstreamError,
  WrongCredentialsError,
} from '../upstream/index.ts';
import { notifyOutbox } from '../outbox/index.ts';
import { addDiscrepancyAlerts } from './follow-ups.ts';
import type { ResolvedSyncDependencies } from './sync-dependencies.ts';
import type { SyncAttempt, SyncResult } from './sync-result.ts';
import { UnknownResourceError } from './unknown-resource-error.ts';
import { reasonOf } from '../error-reason.ts';

/**
 * Records what the service's answer means and closes the rows it covered as `failed`, in one
 * transaction with the outbox row of its alert.
 */
async function giveUp(
  deps: ResolvedSyncDependencies,
  data: SyncJobData,
  upToId: number,
  discrepancy: { kind: string; detail: Record<string, unknown>; rawBody?: unknown },
  reason: string,
): Promise<SyncResult> {
  const at = deps.now().toISOString();
  const recorded = await deps.db.transaction().execute(async (trx) => {
    const result = await recordDiscrepancy(trx, {
      kind: discrepancy.kind,
      resourceKind: data.kind,
      ...((data.id ?? data.reference) ? { resourceId: (data.id ?? data.reference)! } : {}),
      detail: discrepancy.detail,
      ...(discrepancy.rawBody !== undefined ? { rawBody: discrepancy.rawBody } : {}),
      ...(data.inboxId !== undefined ? { inboxId: data.inboxId } : {}),
      createdAt: at,
    });
    const fresh: DiscrepancySummary[] = result.isNew ? [result.discrepancy] : [];
    await addDiscrepancyAlerts(trx, fresh, at);
    const handle = { kind: data.kind, id: data.id, reference: data.reference };
    await closeCoveredInboxRows(trx, handle, {
      upToId,
      status: 'failed',
      lastError: `${discrepancy.kind}: ${reason}`,
      at,
    });
    return result;
  });
  if (recorded.isNew) notifyOutbox();
  deps.logger.warn(
    {
      kind: data.kind,
      id: data.id,
      reference: data.reference,
      inboxId: data.inboxId,
      discrepancy: discrepancy.kind,
    },
    `sync gave up: ${reason}`,
  );
  return { outcome: 'gave_up', reason: `${discrepancy.kind}: ${reason}` };
}

/**
 * The failure policy of a sync (see docs/processing.md):
 * - 401: record it, pause syncing everywhere, stop (a retry cannot fix credentials);
 * - 404 or not found by reference: retry a few times, then `unknown_upstream_resource`;
 * - contract break: `contract_error` with the raw body, nothing booked;
 * - another refusal the service documents (400, 403, 409…): row failed, stop;
 * - anything else (429, 5xx, timeouts, network, database): retry with back-off.
 */
export async function handleSyncFailure(
  deps: ResolvedSyncDependencies,
  data: SyncJobData,
  attempt: SyncAttempt,
  upToId: number,
  error: unknown,
): Promise<SyncResult> {
  if (error instanceof WrongCredentialsError) {
    await deps.credentials.refused(error, deps.now());
    return { outcome: 'stop', reason: reasonOf(error) };
  }
  if (error instanceof NotFoundError || error instanceof UnknownResourceError) {
    const allowed = deps.notFoundAttempts;
    if (attempt.attempt < allowed) return { outcome: 'retry', error, reason: reasonOf(error) };
    return giveUp(
      deps,
      data,
      upToId,
      {
        kind: 'unknown_upstream_resource',
        detail: {
          ...(error instanceof NotFoundError ? { operation: error.operationId, status: 404 } : {}),
          attempts: attempt.attempt,
          message: reasonOf(error),
        },
        ...(error instanceof NotFoundError && error.body !== undefined
          ? { rawBody: error.body }
          : {}),
      },
      `the service does not know this resource after ${attempt.attempt} tries`,
    );
  }
  if (error instanceof ContractError) {
    return giveUp(
      deps,
      data,
      upToId,
      {
        kind: 'contract_error',
        detail: { operation: error.operationId, paths: error.paths, message: error.message },
        rawBody: error.body,
      },
      error.message,
    );
  }
  if (error instanceof UpstreamError && !error.retryable) {
    const handle = { kind: data.kind, id: data.id, reference: data.reference };
    await closeCoveredInboxRows(deps.db, handle, {
      upToId,
      status: 'failed',
      lastError: error.message,
      at: deps.now().toISOString(),
    });
    deps.logger.error(
      { kind: data.kind, id: data.id, code: error.code },
      `sync stopped: ${error.message}`,
    );
    return { outcome: 'stop', reason: error.message };
  }
  if (data.inboxId !== undefined) {
    await noteInboxError(deps.db, data.inboxId, reasonOf(error)).catch(() => undefined);
  }
  return { outcome: 'retry', error, reason: reasonOf(error) };
}
