import { reasonOf } from '../error-reason.ts';
import type { AlertMessage } from './alert-message.ts';
import { sinksFor } from './alert-routing.ts';
import { maskNumbersInText } from './mask-number.ts';
import type { AlertRuntime } from './alert-runtime.ts';
import type { AlertSink, SinkName } from './sinks/alert-sink.ts';

export interface SinkTestResult {
  readonly sink: SinkName;
  readonly delivered: boolean;
  /** The sink's own words when it failed. */
  readonly error?: string;
}

/** Sends `message` through each sink once, without retries, and says per sink how it went. */
async function sendOnce(
  sinks: readonly AlertSink[],
  message: AlertMessage,
  sentAt: Date,
): Promise<SinkTestResult[]> {
  return Promise.all(
    sinks.map(async (sink, index): Promise<SinkTestResult> => {
      try {
        await sink.send(message, sentAt.getTime() * 10 + index);
        return { sink: sink.name, delivered: true };
      } catch (error) {
        return { sink: sink.name, delivered: false, error: maskNumbersInText(reasonOf(error)) };
      }
    }),
  );
}

/**
 * Sends one test message through each configured sink (or only `only`), once, without
 * retries, and says per sink whether it was delivered. Needs no database: it checks the
 * sinks, not the daemon.
 */
export async function sendTestAlert(
  runtime: AlertRuntime,
  only?: SinkName,
): Promise<SinkTestResult[]> {
  const sentAt = runtime.now();
  const at = sentAt.toISOString();
  const message: AlertMessage = {
    event: 'test',
    alertId: undefined,
    kind: 'test',
    severity: 'info',
    title: 'paysync can reach this channel',
    body: `This is a test alert sent by \`paysync alerts test\` at ${at}. Real alerts arrive here as routed (docs/alerts.md).`,
    hint: 'paysync alerts test',
    subject: null,
    detail: {},
    at,
  };
  const sinks = [...runtime.sinks.values()].filter(
    (sink) => only === undefined || sink.name === only,
  );
  return sendOnce(sinks, message, sentAt);
}

/**
 * Sends an alert that no database can hold (a tenant whose books cannot be opened) through the
 * sinks its kind and severity are routed to, once, without retries or a record; a `resolved`
 * message goes only to the sinks that take those. Says per sink how it went.
 */
export async function sendUnrecordedAlert(
  runtime: AlertRuntime,
  message: AlertMessage,
): Promise<SinkTestResult[]> {
  const names = sinksFor(runtime.routing, message.kind, message.severity, [
    ...runtime.sinks.keys(),
  ]);
  const sinks = names
    .map((name) => runtime.sinks.get(name))
    .filter((sink): sink is AlertSink => sink !== undefined)
    .filter((sink) => message.event !== 'resolved' || sink.takesResolved);
  return sendOnce(sinks, message, runtime.now());
}
