import { syncResource, type SyncDependencies } from '../../src/reconcile/index.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';

/**
 * A transfer created on the simulator and mirrored once through the real sync path (read by
 * reference, as a transfer's first sync is; the mirror remembers it for later syncs by id).
 * Returns its id.
 */
export async function createSyncedTransfer(
  deps: SyncDependencies,
  sim: RunningSimulator,
  input: { amount: number; number: string; description?: string },
): Promise<string> {
  const created = sim.control.createTransfer({
    amount: input.amount,
    ...(input.description !== undefined ? { description: input.description } : {}),
    destination: { number: input.number },
  });
  await syncResource(
    deps,
    {
      kind: 'transfer',
      id: created.id,
      reference: String(created.resource.reference),
      via: 'poll',
    },
    { attempt: 1 },
  );
  return created.id;
}
