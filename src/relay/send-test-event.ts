import { randomBytes } from 'node:crypto';
import type { Environment, RelaySettings } from '../config/index.ts';
import type { Executor } from '../db/index.ts';
import { deliveryGuard, signingSecrets } from './deliverer.ts';
import { relayMessageBody } from './message-body.ts';
import { postEvent, type PostResult } from './post-event.ts';
import type { RelayEndpointRow } from './relay.tables.ts';
import { signedHeaders } from './sign.ts';

/**
 * Sends one `ping` event to an endpoint and returns its answer (`paysync endpoints test`): type
 * `ping`, data `{"endpoint":"ep_…"}`, a fresh `evt_` id, signed like every delivery (both
 * secrets during a rotation) and through the same SSRF guard and timeout. It is recorded
 * nowhere: no event row, no delivery, no attempt, no change to the endpoint's health. `db` is
 * taken for the callers' uniform shape and is not written.
 */
export async function sendTestEvent(
  db: Executor,
  endpoint: RelayEndpointRow,
  settings: RelaySettings,
  environment: Environment,
  now: Date,
): Promise<PostResult> {
  void db;
  const eventId = `evt_${randomBytes(12).toString('hex')}`;
  const body = relayMessageBody({
    event_id: eventId,
    type: 'ping',
    occurred_at: now.toISOString(),
    environment,
    data: JSON.stringify({ endpoint: endpoint.endpoint_id }),
  });
  const secrets = signingSecrets(
    {
      secret: endpoint.secret,
      previousSecret: endpoint.previous_secret,
      previousSecretExpiresAt: endpoint.previous_secret_expires_at,
    },
    now,
  );
  return postEvent({
    url: endpoint.url,
    headers: { ...signedHeaders(secrets, eventId, now, body) },
    body,
    timeoutMs: settings.timeoutMs,
    guard: deliveryGuard(settings, environment),
  });
}
