/** Exit codes every command keeps. */
export const ExitCode = {
  ok: 0,
  /** The command ran and something failed (a check, a request, a migration). */
  failure: 1,
  /** Bad usage or configuration, or the command is not implemented yet. */
  usage: 2,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure a command reports in one line and exits with, without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failure,
  ) {
    super(message);
  }
}
