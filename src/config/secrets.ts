import { connectionUrlPassword, parseConnectionUrl } from './connections.ts';
import type { Config } from './load-config.ts';

export { SECRET_VARIABLES } from './secret-variables.ts';

/** The passwords of the database and Redis URLs, as written and decoded, for the log scrubber. */
function urlPasswords(config: Config): string[] {
  return [config.databaseUrl, config.redisUrl].flatMap((url) => {
    const written = parseConnectionUrl(url)?.password;
    const decoded = connectionUrlPassword(url);
    return [written, decoded].filter(
      (value): value is string => value !== undefined && value !== '',
    );
  });
}

/** The password inside a URL, decoded, when there is one. */
function urlPassword(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const password = new URL(url).password;
  return password === '' ? undefined : decodeURIComponent(password);
}

/** Every secret value in the config, so the logger can scrub them wherever they show up. */
export function secretValues(config: Config): string[] {
  const alerts = config.alerts;
  const slackPath = alerts.slackUrl ? new URL(alerts.slackUrl).pathname : undefined;
  return [
    config.apiKey,
    config.adminToken,
    ...config.ops.adminTokens,
    ...config.ops.metricsTokens,
    ...config.webhookSecrets,
    alerts.webhookSecret,
    urlPassword(alerts.smtpUrl),
    // The token of an incoming-webhook URL is its path.
    slackPath && slackPath.length > 1 ? slackPath : undefined,
    ...config.relay.secretsKeys.map((key) => key.key),
    ...urlPasswords(config),
  ].filter((value): value is string => typeof value === 'string' && value.length >= 4);
}
