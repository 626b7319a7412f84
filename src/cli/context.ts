import type { Command } from 'commander';
import type { Config } from '../config/index.ts';
import { systemClock, type Clock } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';

// Every command file imports this one to define its options, so it stays light: the config
// (zod and every component's settings) and the logger (pino) are loaded only when a command
// runs, never for `paysync --help` (issue 39).

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
 * The validated config of the command being run (`invoked`, as commander passes it to an
 * action): its tenant's, when it works on one of the tenants file, else the process's own.
 * Throws ConfigError on a bad variable.
 */
export async function cliConfig(invoked: Command): Promise<Config> {
  const { loadConfig } = await import('../config/index.ts');
  const { commandEnvironment } = await import('./tenant-selection.ts');
  return loadConfig(commandEnvironment(invoked));
}

/**
 * A command's logger at the first config's level, redacting the secrets of every config given:
 * one tenant's, or every tenant's when one process serves several (one log holds them all).
 */
export async function commandLogger(
  role: string,
  configs: readonly [Config, ...Config[]],
): Promise<Logger> {
  const { secretValues } = await import('../config/index.ts');
  const { createLogger } = await import('../logger.ts');
  return createLogger({
    level: configs[0].logLevel,
    secrets: configs.flatMap((config) => secretValues(config)),
    base: { role },
  });
}

/** Loads and validates the config once per command; throws ConfigError on a bad variable. */
export async function commandContext(role: string, invoked: Command): Promise<CommandContext> {
  const config = await cliConfig(invoked);
  return { config, logger: await commandLogger(role, [config]), now: cliClock };
}
