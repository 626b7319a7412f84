/**
 * Alerts: conditions that became true, sent to people through Slack, e-mail, a signed
 * webhook and the log, with dedupe, digests of bursts, per-sink delivery state and retries,
 * and a life cycle (ack, snooze, resolve). See docs/alerts.md.
 */
export {
  ALERT_KINDS,
  DEFAULT_SEVERITY,
  SEVERITIES,
  isAlertKind,
  type AlertKind,
  type Severity,
} from './alert-kind.ts';
export type { AlertEvent, AlertMessage } from './alert-message.ts';
export {
  AlertRulesError,
  defaultRouting,
  loadAlertRouting,
  sinksFor,
  type AlertRouting,
} from './alert-routing.ts';
export {
  alertPacing,
  createAlertRuntime,
  DEFAULT_RETRY_DELAYS_MS,
  type AlertPacing,
  type AlertRuntime,
  type AlertRuntimeOptions,
} from './alert-runtime.ts';
export {
  alertCountsByState,
  countOpenAlerts,
  deliveriesOf,
  findAlert,
  listAlerts,
  listDeliveries,
  type Alert,
  type AlertDelivery,
  type AlertStatus,
  type DeliveryStatus,
  type ListAlertsOptions,
} from './alert.repository.ts';
export {
  createAlertDeliverer,
  digestMessage,
  type AlertDeliverer,
  type AlertDelivererOptions,
} from './alert-deliverer.ts';
export { maskDeep, maskNumber, maskNumberFields, maskNumbersInText } from './mask-number.ts';
export {
  AlertActionError,
  ackAlert,
  raiseAlert,
  resolveAlert,
  resolveAlertsByKey,
  type AlertDependencies,
  type RaiseAlertInput,
  type RaisedAlert,
  type RaiseOutcome,
} from './raise-alert.ts';
export { consumeAlertFollowUp, type AlertFollowUpDependencies } from './consume-alert-follow-up.ts';
export {
  raiseAlertFromFollowUp,
  transferFailedAlert,
  type AlertFollowUp,
  type GenericAlertFollowUp,
} from './raise-from-follow-up.ts';
export { sendTestAlert, sendUnrecordedAlert, type SinkTestResult } from './send-test-alert.ts';
export { SINK_NAMES, type SinkName } from './sinks/alert-sink.ts';
export { slackPayload } from './sinks/slack.sink.ts';
export { emailContent } from './sinks/email.sink.ts';
export { webhookPayload } from './sinks/webhook.sink.ts';
export {
  ALERT_DELIVERIES_RETENTION,
  alertDeliveriesPrunable,
  pruneAlertDeliveries,
} from './delivery-retention.ts';
export {
  relayEndpointAlerts,
  relayEndpointDisabledAlert,
  relayEndpointFailingAlert,
  type RelayEndpointFacts,
} from './relay-alerts.ts';
export {
  expectationOverdueAlert,
  expectationOverdueKey,
  watchOverdueExpectations,
} from './expectation-alerts.ts';
