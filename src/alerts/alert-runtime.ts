import type { Logger } from 'pino';
import type { AlertSettings } from '../config/index.ts';
import { defaultRouting, loadAlertRouting, type AlertRouting } from './alert-routing.ts';
import type { AlertSink, SinkName } from './sinks/alert-sink.ts';
import { emailSink } from './sinks/email.sink.ts';
import { logSink } from './sinks/log.sink.ts';
import { slackSink } from './sinks/slack.sink.ts';
import { webhookSink } from './sinks/webhook.sink.ts';

/** Pacing of alerts. Declared here with their defaults; merged in {@link alertPacing}. */
export interface AlertPacing {
  /** The same dedupe key notifies once within this window. @defaultValue 3600000 (60 min) */
  readonly dedupeWindowMs: number;
  /** More than this many alerts of one kind within `digestWindowMs` become one digest. @defaultValue 5 */
  readonly digestThreshold: number;
  /** @defaultValue 300000 (5 min) */
  readonly digestWindowMs: number;
  /** An open alert nobody acknowledged notifies again after this long. @defaultValue 14400000 (4 h) */
  readonly renotifyAfterMs: number;
  /** Waits between tries of one delivery; after the last one it stays `failed`. @defaultValue 1 m, 5 m, 30 m, 2 h */
  readonly retryDelaysMs: readonly number[];
  /** Failed tries in a row after which a sink is reported on the other sinks. @defaultValue 3 */
  readonly sinkFailingAfter: number;
  /** More refused webhook signatures than this within the window raise `signature_failures`. @defaultValue 10 */
  readonly signatureFailureThreshold: number;
  /** @defaultValue 300000 (5 min) */
  readonly signatureFailureWindowMs: number;
  /** No webhook for this long while sweeps find items raises `webhooks_silent`. @defaultValue 3600000 (60 min) */
  readonly webhookSilenceMs: number;
}

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000];

/** Everything alerting needs at run time: the sinks, the routing and the pacing. */
export interface AlertRuntime {
  readonly sinks: ReadonlyMap<SinkName, AlertSink>;
  readonly routing: AlertRouting;
  readonly pacing: AlertPacing;
  readonly logger: Logger;
  /** The clock, from the caller; tests move it. */
  readonly now: () => Date;
  /** `live` or `sandbox` (`PAYSYNC_ENVIRONMENT`): stamped on the relay's `alert.raised` events. */
  readonly environment: string;
  /** Called after new deliveries are written, so a deliverer in this process sends them now. */
  wake(): void;
  /** Lets the deliverer hook itself in as the `wake` target. */
  onWake(listener: () => void): void;
  close(): Promise<void>;
}

export interface AlertRuntimeOptions {
  readonly pacing?: Partial<AlertPacing>;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /** `live` or `sandbox` (`PAYSYNC_ENVIRONMENT`). */
  readonly environment: string;
  /** Per-request timeout of the HTTP and SMTP sinks. @defaultValue 10000 */
  readonly sinkTimeoutMs?: number;
  /** Accept a self-signed SMTP certificate (tests). @defaultValue false */
  readonly allowSelfSignedSmtp?: boolean;
}

/** The one place pacing defaults meet the config and any overrides. */
export function alertPacing(
  settings: AlertSettings,
  overrides: Partial<AlertPacing> = {},
): AlertPacing {
  return {
    dedupeWindowMs: settings.dedupeWindowMs,
    digestThreshold: settings.digestThreshold,
    digestWindowMs: settings.digestWindowMs,
    renotifyAfterMs: settings.renotifyAfterMs,
    retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
    sinkFailingAfter: 3,
    signatureFailureThreshold: settings.signatureFailureThreshold,
    signatureFailureWindowMs: settings.signatureFailureWindowMs,
    webhookSilenceMs: settings.webhookSilenceMs,
    ...overrides,
  };
}

/** The sinks the settings configure; the log is always one. */
export function configuredSinks(
  settings: AlertSettings,
  logger: Logger,
  options: Omit<AlertRuntimeOptions, 'pacing'>,
): Map<SinkName, AlertSink> {
  const timeoutMs = options.sinkTimeoutMs ?? 10_000;
  const sinks = new Map<SinkName, AlertSink>();
  if (settings.slackUrl) sinks.set('slack', slackSink(settings.slackUrl, { timeoutMs }));
  if (settings.smtpUrl && settings.emailFrom && settings.emailTo.length > 0) {
    sinks.set(
      'email',
      emailSink({
        url: settings.smtpUrl,
        from: settings.emailFrom,
        to: settings.emailTo,
        timeoutMs,
        allowPlaintext: settings.smtpAllowPlaintext,
        ...(options.allowSelfSignedSmtp ? { allowSelfSigned: true } : {}),
      }),
    );
  }
  if (settings.webhookUrl && settings.webhookSecret) {
    sinks.set(
      'webhook',
      webhookSink(settings.webhookUrl, settings.webhookSecret, { timeoutMs, now: options.now }),
    );
  }
  sinks.set('log', logSink(logger));
  return sinks;
}

/**
 * Builds the sinks and reads the routing file. Throws `AlertRulesError` (one line: file,
 * line, problem) when the file is bad, so the daemon refuses to start rather than drop alerts.
 */
export function createAlertRuntime(
  settings: AlertSettings,
  logger: Logger,
  options: AlertRuntimeOptions,
): AlertRuntime {
  const sinks = configuredSinks(settings, logger, options);
  const names = [...sinks.keys()];
  const routing = settings.rulesFile
    ? loadAlertRouting(settings.rulesFile, names)
    : defaultRouting(names);
  const listeners: (() => void)[] = [];
  return {
    sinks,
    routing,
    pacing: alertPacing(settings, options.pacing),
    logger,
    now: options.now,
    environment: options.environment,
    wake() {
      for (const listener of listeners) listener();
    },
    onWake(listener) {
      listeners.push(listener);
    },
    async close() {
      await Promise.allSettled([...sinks.values()].map((sink) => sink.close?.()));
    },
  };
}
