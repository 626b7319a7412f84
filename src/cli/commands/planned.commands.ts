import { Command } from 'commander';
import { CliError, ExitCode } from '../errors.ts';

function notImplementedYet(name: string): () => never {
  return () => {
    throw new CliError(`${name}: not implemented yet`, ExitCode.usage);
  };
}

/**
 * Commands of the design that later issues implement. They are registered now so `--help`
 * shows the whole shape; each moves to a file of its own when it is built.
 */
export function plannedCommands(): Command[] {
  const exportCommand = new Command('export')
    .description('write the books for a period in an accounting format')
    .requiredOption('--from <time>', 'start, UTC ISO 8601 (inclusive)')
    .requiredOption('--to <time>', 'end, UTC ISO 8601 (inclusive)')
    .option('--format <format>', 'output format', 'csv')
    .action(notImplementedYet('export'));
  return [exportCommand];
}
