/**
 * The configuration: every `PAYSYNC_*` variable, parsed once, typed, frozen, failing fast
 * with the variable's name. One file per component's settings, each declaring its variables
 * and their defaults; load-config.ts gathers them. This is the public surface.
 */
export { ConfigError } from './config-error.ts';
export {
  CONFIG_VARIABLES,
  loadConfig,
  readEnvironment,
  type Config,
  type EnvSource,
} from './load-config.ts';
export {
  DEFAULT_SENTINEL_PORT,
  hidePasswordInUrl,
  isSentinelUrl,
  parseConnectionUrl,
  readSentinelUrl,
  type RedisEvictionCheck,
  type RedisSentinelTarget,
  type SentinelAddress,
} from './connections.ts';
export { readSettingsFile, type SettingsFile } from './settings-file.ts';
export { SECRET_VARIABLES, secretValues } from './secrets.ts';
export {
  requireServiceCredentials,
  type Environment,
  type ServiceCredentials,
  type ServiceSettings,
  type UpstreamSettings,
} from './service.ts';
export { DEFAULT_METRICS_PORT, type LogLevel } from './process.ts';
export type { WebhookScheme, WebhookSettings } from './webhook.ts';
export {
  DEFAULT_OPS_HOST,
  DEFAULT_OPS_PORT,
  isLoopbackHost,
  MIN_LIVE_TOKEN_LENGTH,
  type OpsSettings,
} from './ops.ts';
export type { ProcessingSettings } from './processing.ts';
export type { AlertSettings } from './alerts.ts';
export type { JanitorSettings } from './janitor.ts';
export { isTimeZone, type BooksSettings } from './books.ts';
export {
  DEFAULT_BALANCE_CRON,
  DEFAULT_VERDICT_CRON,
  parseLowBalanceThresholds,
  type BalanceSettings,
  type LowBalanceThreshold,
} from './balances.ts';
export type { ExportSettings } from './exports.ts';
export type { ReceiptSettings } from './receipts.ts';
export type { PollingSettings } from './polling.ts';
export type { ReceiverSettings } from './receiver.ts';
export type { RetentionPeriods, RetentionSettings } from './retention.ts';
export type { RelaySettings, SecretsKey } from './relay.ts';
export {
  EXPECTATION_BREAK_KINDS,
  type AllExpected,
  type ExpectationBreakKindSetting,
  type ExpectationSettings,
} from './expectations.ts';
