import { Command } from 'commander';
import { runDaemonRoles, TENANTS_HELP } from './daemon-role.action.ts';

/** `paysync start`: receiver, workers and scheduler in one process. */
export function startCommand(): Command {
  return new Command('start')
    .description('run every role (receiver, workers, scheduler) in one process')
    .addHelpText('after', TENANTS_HELP)
    .action((_flags: object, invoked: Command) =>
      runDaemonRoles('start', ['workers', 'scheduler', 'receiver'], invoked),
    );
}
