import { loadConfig, secretValues, type Config } from '../config/index.ts';
import { createLogger, type Logger } from '../logger.ts';

/** What most commands need: the validated config and a logger that knows its secrets. */
export interface CommandContext {
  readonly config: Config;
  readonly logger: Logger;
}

/** Loads and validates the config once per command; throws ConfigError on a bad variable. */
export function commandContext(role: string): CommandContext {
  const config = loadConfig();
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretValues(config),
    base: { role },
  });
  return { config, logger };
}
