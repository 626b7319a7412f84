import { Command, Option } from 'commander';
import { CliError, ExitCode } from '../errors.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';

function notImplementedYet(name: string): () => never {
  return () => {
    throw new CliError(`${name}: not implemented yet`, ExitCode.usage);
  };
}

/** A mandatory `--from`/`--to` flag, read by the one time parser every command shares. */
function windowEdge(flag: '--from' | '--to', what: string): Option {
  return new Option(`${flag} <time>`, `${what} (inclusive): ${TIME_FORMS}`)
    .makeOptionMandatory()
    .argParser(timeOption(flag));
}

/**
 * Commands of the design that later issues implement. They are registered now so `--help`
 * shows the whole shape; each moves to a file of its own when it is built.
 */
export function plannedCommands(): Command[] {
  const sweep = new Command('sweep')
    .description('look for events the service sent but paysync missed, now')
    .action(notImplementedYet('sweep'));
  const backfill = new Command('backfill')
    .description('fetch every payment intent and transfer in a time window into the ledger')
    .addOption(windowEdge('--from', 'start'))
    .addOption(windowEdge('--to', 'end'))
    .action(notImplementedYet('backfill'));
  return [sweep, backfill];
}
