/** Raised when a `PAYSYNC_*` variable is missing or invalid. The message is one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_config' as const;
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}
