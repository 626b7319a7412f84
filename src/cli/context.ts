import { loadConfig, secretValues, type Config } from '../config/index.ts';
import { systemClock, type Clock } from '../lifecycle/index.ts';
import { createLogger, type Logger } from '../logger.ts';

/**
 * The CLI's clock: every command reads the time through it (or through its context), so the
 * clock is chosen here, once, for the whole CLI.
 */
export const cliClock: Clock = systemClock;

/** What most commands need: the validated config, a logger that knows its secrets, the clock. */
export interface CommandContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly now: Clock;
}

/**
 * A command's logger at the first config's level, redacting the secrets of every config given:
 * one tenant's, or every tenant's when one process serves several (one log holds them all).
 */
export function commandLogger(role: string, configs: readonly [Config, ...Config[]]): Logger {
  return createLogger({
    level: configs[0].logLevel,
    secrets: configs.flatMap((config) => secretValues(config)),
    base: { role },
  });
}

/** Loads and validates the config once per command; throws ConfigError on a bad variable. */
export function commandContext(role: string): CommandContext {
  const config = loadConfig();
  return { config, logger: commandLogger(role, [config]), now: cliClock };
}
