import { headline, type AlertMessage } from '../alert-message.ts';
import { networkReason, shortBody, SinkError, type AlertSink } from './alert-sink.ts';

const SEVERITY_MARK: Record<string, string> = {
  critical: ':rotating_light:',
  warning: ':warning:',
  info: ':information_source:',
};

/** Block Kit text fields stop at 3000 characters. */
function clip(text: string, max = 2900): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Escapes what Slack's mrkdwn would read as markup or a mention. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The Block Kit payload of one message: a header, the body, and a context line with the
 * command to run. `text` is the fallback notifications and Mattermost/Rocket.Chat show.
 */
export function slackPayload(message: AlertMessage): Record<string, unknown> {
  const mark =
    message.event === 'resolved' ? ':white_check_mark:' : SEVERITY_MARK[message.severity];
  const title = `${mark ?? ''} ${headline(message)}`.trim();
  const context = [
    `*${message.severity}*`,
    `\`${message.kind}\``,
    message.alertId !== undefined ? `alert ${message.alertId}` : undefined,
    message.at,
    `\`${message.hint}\``,
  ].filter(Boolean);
  return {
    text: clip(escapeMrkdwn(title)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(title, 150), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(escapeMrkdwn(message.body)) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: clip(context.join(' · ')) }] },
    ],
  };
}

/** A Slack-compatible incoming webhook: Slack, Mattermost and Rocket.Chat take the same JSON. */
export function slackSink(url: string, options: { timeoutMs?: number } = {}): AlertSink {
  return {
    name: 'slack',
    takesResolved: true,
    async send(message) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(slackPayload(message)),
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
      } catch (error) {
        // Never the URL: its path is the webhook's token.
        throw new SinkError('slack', `could not reach the Slack webhook: ${networkReason(error)}`);
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) {
        throw new SinkError(
          'slack',
          `Slack webhook answered HTTP ${response.status}: ${shortBody(text)}`,
        );
      }
    },
  };
}
