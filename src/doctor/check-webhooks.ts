import { requireServiceCredentials, type Config } from '../config/index.ts';
import { clientOptionsFromConfig, createUpstreamClient } from '../upstream/index.ts';
import { passed, warned, type CheckResult } from './check-result.ts';

/**
 * Whether the service's registration list (GET /webhooks) has a webhook for this receiver: a
 * URL whose path is PAYSYNC_WEBHOOK_PATH (the public host is not in paysync's settings). A
 * warning, not a failure: without one the sweeps still find every item, only later, and a
 * URL registered twice delivers every event twice. Undefined without credentials or when the
 * service cannot be reached: the service check says why.
 */
export async function checkWebhooks(
  config: Config,
  now: Date,
  timeoutMs = 5000,
): Promise<CheckResult | undefined> {
  try {
    requireServiceCredentials(config);
  } catch {
    return undefined;
  }
  const client = createUpstreamClient({
    ...clientOptionsFromConfig(config, () => now),
    maxRetries: 0,
    timeoutMs,
  });
  let hooks;
  try {
    hooks = await client.listWebhooks();
  } catch {
    return undefined; // the service check says why the service cannot be read
  } finally {
    client.close();
  }
  const path = config.webhook.path;
  const byUrl = new Map<string, string[]>();
  for (const hook of hooks) {
    if (!hook.url || pathOf(hook.url) !== path) continue;
    byUrl.set(hook.url, [...(byUrl.get(hook.url) ?? []), hook.id]);
  }
  if (byUrl.size === 0) {
    return warned(
      'webhooks',
      `none of the ${hooks.length} webhook(s) registered at the service delivers to a URL ending in ${path}: until one does, only sweeps find new items`,
      `register this receiver: paysync webhooks register --url https://<its public host>${path}`,
    );
  }
  const twice = [...byUrl.entries()].filter(([, ids]) => ids.length > 1);
  if (twice.length > 0) {
    const [url, ids] = twice[0]!;
    return warned(
      'webhooks',
      `${url} is registered ${ids.length} times (${ids.join(', ')}): every event arrives ${ids.length} times`,
      `delete the extra registration(s): ${ids
        .slice(1)
        .map((id) => `paysync webhooks delete ${id}`)
        .join('; ')}`,
    );
  }
  return passed('webhooks', `registered at the service for ${[...byUrl.keys()].join(', ')}`);
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}
