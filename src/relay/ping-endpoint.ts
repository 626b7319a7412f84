import { randomBytes } from 'node:crypto';
import type { Environment, RelaySettings } from '../config/index.ts';
import type { SecretsKeys } from './manage-endpoints.ts';
import { SecretKeyError } from './secret-box.ts';
import { deliveryGuard, signingSecrets } from './deliverer.ts';
import { relayMessageBody } from './message-body.ts';
import { postEvent, type PostResult } from './post-event.ts';
import type { RelayEndpointRow } from './relay.tables.ts';
import { signedHeaders } from './sign.ts';

/** What `endpoints test` sent and how the endpoint answered. */
export interface PingResult extends PostResult {
  /** The ping's `webhook-id` (`evt_ping_…`): not stored, never retried. */
  readonly eventId: string;
}

/**
 * Sends one signed `ping` event to the endpoint, now, as a delivery would be sent (same body
 * shape, signatures, timeout and SSRF guard), and reports the answer. Nothing is stored and
 * nothing is retried; a disabled endpoint is pinged too, to check it before enabling it.
 */
export async function pingEndpoint(
  endpoint: RelayEndpointRow,
  settings: Pick<RelaySettings, 'allowHttp' | 'allowedHosts' | 'timeoutMs'> & SecretsKeys,
  environment: Environment,
  now: Date,
): Promise<PingResult> {
  const eventId = `evt_ping_${randomBytes(10).toString('hex')}`;
  const body = relayMessageBody({
    event_id: eventId,
    type: 'ping',
    occurred_at: now.toISOString(),
    environment,
    data: JSON.stringify({
      endpoint: endpoint.endpoint_id,
      message: 'A test event from paysync endpoints test; nothing to do.',
    }),
  });
  let secrets: string[];
  try {
    secrets = signingSecrets(
      {
        secret: endpoint.secret,
        previousSecret: endpoint.previous_secret,
        previousSecretExpiresAt: endpoint.previous_secret_expires_at,
      },
      now,
      settings.secretsKeys ?? [],
    );
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    return { outcome: 'error', durationMs: 0, error: error.message, eventId };
  }
  const result = await postEvent({
    url: endpoint.url,
    headers: { ...signedHeaders(secrets, eventId, now, body) },
    body,
    timeoutMs: settings.timeoutMs,
    guard: deliveryGuard(settings, environment),
  });
  return { ...result, eventId };
}
