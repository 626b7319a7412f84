import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { metricsRegistry } from '../../src/metrics/index.ts';
import { CONTRACT_BREAKS } from '../../src/sim/index.ts';
import { ContractError } from '../../src/upstream/index.ts';
import { clientFor, startSimulator, type RunningSimulator } from './support/sim-fixture.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11 });
});
afterAll(async () => {
  await sim.stop();
});
beforeEach(() => {
  sim.control.reset();
});

async function retriesCounted(operation: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('paysync_upstream_retries_total')?.get();
  return (metric?.values ?? [])
    .filter((value) => value.labels.operation === operation)
    .reduce((sum, value) => sum + value.value, 0);
}

describe('injected 500s', () => {
  it('1,000 reads with 20% injected 500s all succeed, and the retries are counted', async () => {
    sim.control.seed({ kind: 'payment_intent', count: 20 });
    sim.control.setFaults({ errorRate: 0.2 });
    const upstream = clientFor(sim, { concurrency: 32, maxRetries: 8 });
    const before = await retriesCounted('listPaymentIntents');
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, () => upstream.listPaymentIntents({ perPage: 5 })),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const stats = upstream.stats();
    // About 1,000 × 0.2 / 0.8 = 250 retries; each is one more request than the 1,000 reads.
    expect(stats.retries).toBeGreaterThan(150);
    expect(stats.retries).toBeLessThan(400);
    expect(stats.requests).toBe(1000 + stats.retries);
    expect(stats.retriesByReason).toEqual({ internal: stats.retries });
    expect((await retriesCounted('listPaymentIntents')) - before).toBe(stats.retries);
  });
});

describe('contract-breaking responses', () => {
  test.each(CONTRACT_BREAKS)('%s gives a ContractError naming the broken field', async (kind) => {
    const transfer = sim.control.createTransfer({
      amount: 5000,
      destination: { number: '+221770001111' },
    });
    sim.control.setFaults({
      contractBreakRate: 1,
      contractBreak: kind,
      operations: ['listTransfers'],
    });
    const upstream = clientFor(sim);
    const error = await upstream.listTransfers().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    const contractError = error as ContractError;
    const expectedField =
      kind === 'missing_field'
        ? 'createdAt'
        : kind.endsWith('amount')
          ? 'amount'
          : kind === 'bad_status'
            ? 'status'
            : 'id';
    expect(contractError.paths).toEqual([`[0].${expectedField}`]);
    expect(contractError.message).toContain(`[0].${expectedField}`);
    expect(contractError.operationId).toBe('listTransfers');
    expect(JSON.stringify(contractError.body)).toContain(transfer.id.replace(/^tr_/, ''));
    expect(contractError.retryable).toBe(false);

    // Nothing crashed: the same client carries on once the service behaves.
    sim.control.setFaults({ contractBreakRate: 0 });
    await expect(upstream.listTransfers()).resolves.toMatchObject([{ id: transfer.id }]);
  });
});
