import { CommanderError } from 'commander';
import { startupErrorFrom } from '../lifecycle/index.ts';
import { CliError, ExitCode } from './errors.ts';
import { buildProgram } from './program.ts';
import { reasonOf } from '../error-reason.ts';
import { sayError } from './output.ts';

/** The CLI's one error boundary: a one-line reason on stderr and a non-zero exit code. */
async function exitCodeFor(error: unknown, command: string): Promise<number> {
  if (error instanceof CommanderError) {
    // Commander has already printed its message; help and version are not failures.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  // Loaded only on a failure: the config module (zod and every setting) is heavy, and a command
  // that failed before it loaded its config cannot have thrown a ConfigError.
  const { ConfigError } = await import('../config/index.ts');
  if (error instanceof ConfigError) {
    sayError(`paysync ${command}: ${error.message}`);
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    sayError(`paysync ${error.message}`);
    return error.exitCode;
  }
  const startup = startupErrorFrom(error);
  if (startup) {
    // A role refusing to start (pending migrations, an evicting Redis, a port in use…)
    // already says why and what to do; no stack trace adds to that.
    sayError(`paysync ${command}: ${startup.message}`);
    return ExitCode.failure;
  }
  const message = reasonOf(error);
  if (process.env.PAYSYNC_LOG_LEVEL === 'debug' && error instanceof Error) {
    sayError(`paysync ${command}: ${message}`);
    if (error.stack) sayError(error.stack);
  } else {
    sayError(`paysync ${command}: ${message} (PAYSYNC_LOG_LEVEL=debug shows where it failed)`);
  }
  return ExitCode.failure;
}

/**
 * Runs `paysync` on `argv` (as `process.argv`: node, the script, then the arguments) with a
 * fresh program. Returns the exit code of a failure, reported on stderr; undefined when the
 * command ended by itself (it may have set `process.exitCode`, as `report` does). bin/paysync.js
 * runs it through main.ts; tests run it in their own process (test/support/run-cli-in-process.ts).
 */
export async function runPaysync(argv: readonly string[]): Promise<number | undefined> {
  const program = await buildProgram(argv[2]);
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  for (const group of program.commands) for (const sub of group.commands) sub.exitOverride();
  try {
    await program.parseAsync([...argv]);
    return undefined;
  } catch (error) {
    return await exitCodeFor(error, argv[2] ?? '');
  }
}
