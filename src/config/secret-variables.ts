/** Variables whose values must never be echoed back, in an error or a log. */
export const SECRET_VARIABLES = [
  'PAYSYNC_API_KEY',
  'PAYSYNC_WEBHOOK_SECRET',
  'PAYSYNC_ADMIN_TOKEN',
  'PAYSYNC_METRICS_TOKEN',
  'PAYSYNC_ALERT_SMTP_URL',
  'PAYSYNC_ALERT_WEBHOOK_SECRET',
  'PAYSYNC_ALERT_SLACK_URL',
  'PAYSYNC_SECRETS_KEY',
] as const;
