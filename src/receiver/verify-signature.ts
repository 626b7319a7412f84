import { ConfigError, type Config } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { hmacVerifier } from './hmac.scheme.ts';
import type { SignatureVerifier } from './signature-outcome.ts';
import { standardWebhooksKey, standardWebhooksVerifier } from './standard-webhooks.scheme.ts';

export type SigningConfig = Pick<Config, 'environment' | 'webhookSecrets' | 'webhook'>;

const acceptEverything: SignatureVerifier = () => ({ ok: true });

/**
 * The verifier the configured scheme calls for, checked once at start-up. Throws
 * {@link ConfigError} when the scheme cannot work (no secret, a secret that is not
 * `whsec_<base64>`) or is unsafe (`none` in live without `PAYSYNC_ALLOW_UNSIGNED=true`).
 * Error messages name variables, never values.
 */
export function createSignatureVerifier(config: SigningConfig, logger: Logger): SignatureVerifier {
  const { scheme } = config.webhook;
  if (scheme === 'none') {
    if (config.environment === 'live' && !config.webhook.allowUnsigned) {
      throw new ConfigError(
        'PAYSYNC_WEBHOOK_SCHEME',
        'PAYSYNC_WEBHOOK_SCHEME=none is refused when PAYSYNC_ENVIRONMENT=live: anyone could post fake events; use standard or hmac, or set PAYSYNC_ALLOW_UNSIGNED=true if something in front of paysync already authenticates the sender',
      );
    }
    logger.warn(
      { scheme, environment: config.environment },
      'webhook signatures are NOT verified (PAYSYNC_WEBHOOK_SCHEME=none): any caller can post events',
    );
    return acceptEverything;
  }
  if (config.webhookSecrets.length === 0) {
    throw new ConfigError(
      'PAYSYNC_WEBHOOK_SECRET',
      `PAYSYNC_WEBHOOK_SECRET is not set: the ${scheme} scheme needs the signing secret (several, comma-separated, during a rotation), or set PAYSYNC_WEBHOOK_SCHEME=none in a sandbox`,
    );
  }
  if (scheme === 'hmac') {
    return hmacVerifier({
      header: config.webhook.hmacHeader,
      encoding: config.webhook.hmacEncoding,
      timestampHeader: config.webhook.hmacTimestampHeader,
      secrets: config.webhookSecrets,
    });
  }
  const keys = config.webhookSecrets.map((secret, index) => {
    const key = standardWebhooksKey(secret);
    if (!key) {
      throw new ConfigError(
        'PAYSYNC_WEBHOOK_SECRET',
        `PAYSYNC_WEBHOOK_SECRET is invalid: secret number ${index + 1} is not whsec_<base64>, which the standard scheme needs`,
      );
    }
    return key;
  });
  return standardWebhooksVerifier(keys);
}
