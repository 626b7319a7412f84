import { ConfigError, requireServiceCredentials, type Config } from '../config/index.ts';
import { failed, passed, type CheckResult } from './check-result.ts';
import { reasonOf } from '../error-reason.ts';

/**
 * The service answers and accepts our credentials. `GET /balance` is cheap, read-only and
 * credentialed, so a 401 there means the credentials are wrong.
 */
export async function checkService(config: Config, timeoutMs = 5000): Promise<CheckResult> {
  let credentials;
  try {
    credentials = requireServiceCredentials(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      return failed(
        'service',
        `not configured: ${error.message.split(':')[0]}`,
        'set PAYSYNC_UPSTREAM_URL, PAYSYNC_API_KEY and PAYSYNC_MERCHANT_ID (`paysync sim` prints sandbox ones)',
      );
    }
    throw error;
  }
  const url = `${credentials.upstreamUrl}/balance`;
  try {
    const response = await fetch(url, {
      headers: {
        ApiKey: credentials.apiKey,
        MerchantId: credentials.merchantId,
        Environment: credentials.environment,
        Accept: 'application/json',
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.status === 401) {
      return failed(
        'service',
        `${credentials.upstreamUrl} rejected the credentials (401 wrong_credentials)`,
        'check PAYSYNC_API_KEY and PAYSYNC_MERCHANT_ID against the merchant dashboard',
      );
    }
    if (!response.ok) {
      return failed(
        'service',
        `${credentials.upstreamUrl} answered ${response.status} to GET /balance`,
        response.status === 429
          ? 'the service is throttling: lower PAYSYNC_UPSTREAM_RPS and retry'
          : 'check PAYSYNC_UPSTREAM_URL; retry later if the service is having trouble',
      );
    }
    return passed(
      'service',
      `${credentials.upstreamUrl} reachable, credentials accepted (${credentials.environment})`,
    );
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const cause = error instanceof Error && error.cause ? error.cause : error;
    return failed(
      'service',
      timedOut
        ? `${credentials.upstreamUrl} did not answer within ${timeoutMs} ms`
        : `cannot reach ${credentials.upstreamUrl} (${reasonOf(cause)})`,
      'check PAYSYNC_UPSTREAM_URL and the network path to the service',
    );
  }
}
