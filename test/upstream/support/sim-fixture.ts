import { startSimulator, type RunningSimulator } from '../../../src/sim/index.ts';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../../../src/upstream/index.ts';

/** A client pointed at `sim`, fast back-off, no rate limit unless asked. */
export function clientFor(
  sim: RunningSimulator,
  overrides: Partial<UpstreamClientOptions> = {},
): UpstreamClient {
  return createUpstreamClient({
    baseUrl: sim.url,
    apiKey: sim.credentials.apiKey,
    merchantId: sim.credentials.merchantId,
    environment: 'sandbox',
    rps: 10_000,
    concurrency: 16,
    retryInitialDelayMs: 2,
    retryMaxDelayMs: 20,
    now: () => new Date(),
    ...overrides,
  });
}

export { startSimulator, type RunningSimulator };
