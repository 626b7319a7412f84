import type { Logger } from 'pino';
import { headline } from '../alert-message.ts';
import type { AlertSink } from './alert-sink.ts';

/** The log, always: every alert is written there whatever the routing says. */
export function logSink(logger: Logger): AlertSink {
  return {
    name: 'log',
    takesResolved: true,
    async send(message) {
      const line = {
        alert: {
          id: message.alertId,
          event: message.event,
          kind: message.kind,
          severity: message.severity,
          subject: message.subject,
          detail: message.detail,
        },
      };
      const text = `alert: ${headline(message)} (${message.hint})`;
      if (message.severity === 'critical' && message.event !== 'resolved') logger.error(line, text);
      else if (message.event === 'firing' || message.event === 'digest') logger.warn(line, text);
      else logger.info(line, text);
    },
  };
}
