import type { Config } from '../config/index.ts';
import { cliClock } from './context.ts';
import type { UpstreamClient } from '../upstream/index.ts';

/**
 * A client for one CLI command. A person is waiting at the terminal, so a dead service is
 * reported after a couple of quick retries rather than the daemon's patient back-off.
 * Throws the config's `ConfigError` naming every missing credential.
 */
export async function serviceClientFor(config: Config): Promise<UpstreamClient> {
  const { clientOptionsFromConfig, createUpstreamClient } = await import('../upstream/index.ts');
  return createUpstreamClient({
    ...clientOptionsFromConfig(config, cliClock),
    maxRetries: Math.min(config.upstream.maxRetries, 2),
    retryMaxDelayMs: 2_000,
  });
}
