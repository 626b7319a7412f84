import { Command } from 'commander';
import { runDaemonRoles, TENANTS_HELP } from './daemon-role.action.ts';

/**
 * `paysync schedule`: the cron. Each tick only enqueues a job with a slot-derived id, so a
 * second scheduler (say, during a deploy) never makes a tick run twice.
 */
export function scheduleCommand(): Command {
  return new Command('schedule')
    .description('run the scheduler: inbox recovery now; sweeps, snapshots and exports later')
    .addHelpText('after', TENANTS_HELP)
    .action((_flags: object, invoked: Command) =>
      runDaemonRoles('schedule', ['scheduler'], invoked),
    );
}
