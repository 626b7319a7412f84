import { Command } from 'commander';
import { runDaemonRoles, TENANTS_HELP } from './daemon-role.action.ts';

/**
 * `paysync work`: the queue workers (ingest, sync, follow-up, receipts, scheduled ticks), with
 * `PAYSYNC_WORKER_CONCURRENCY` jobs at once per queue. Run as many as the service's rate limit
 * allows; they share the queues and the rate limit through Redis.
 */
export function workCommand(): Command {
  return new Command('work')
    .description('run the queue workers that fetch each resource from the service and book it')
    .addHelpText('after', TENANTS_HELP)
    .action((_flags: object, invoked: Command) => runDaemonRoles('work', ['workers'], invoked));
}
