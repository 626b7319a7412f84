import { Webhook } from 'standardwebhooks';
import type { Clock } from '../../lifecycle/index.ts';
import type { AlertMessage } from '../alert-message.ts';
import { networkReason, shortBody, SinkError, type AlertSink } from './alert-sink.ts';

/** The JSON body: `type` says what happened, `data` is the message as paysync holds it. */
export function webhookPayload(message: AlertMessage): Record<string, unknown> {
  return { type: `alert.${message.event}`, timestamp: message.at, data: message };
}

/**
 * A generic JSON webhook signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), for PagerDuty-style tools or a merchant's own system. The id is the
 * delivery's, so a retry carries the same id and the receiver can drop the repeat.
 */
export function webhookSink(
  url: string,
  secret: string,
  options: { timeoutMs?: number; now: Clock },
): AlertSink {
  const signer = new Webhook(secret);
  return {
    name: 'webhook',
    takesResolved: true,
    async send(message, deliveryId) {
      const body = JSON.stringify(webhookPayload(message));
      const id = `msg_paysync_alert_${deliveryId}`;
      // The signature's timestamp is the clock: the receiver checks it against its own.
      const now = options.now();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(id, now, body),
      };
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
      } catch (error) {
        throw new SinkError(
          'webhook',
          `could not reach ${new URL(url).origin}: ${networkReason(error)}`,
        );
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) {
        throw new SinkError(
          'webhook',
          `alert webhook answered HTTP ${response.status}: ${shortBody(text)}`,
        );
      }
    },
  };
}
