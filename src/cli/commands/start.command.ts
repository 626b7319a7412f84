import { Command } from 'commander';
import { runDaemonRoles } from './daemon-role.action.ts';

/** `paysync start`: receiver, workers and scheduler in one process. */
export function startCommand(): Command {
  return new Command('start')
    .description('run every role (receiver, workers, scheduler) in one process')
    .action(() => runDaemonRoles('start', ['workers', 'scheduler', 'receiver']));
}
