import { Command } from 'commander';
import { runDaemonRoles, TENANTS_HELP } from './daemon-role.action.ts';

/**
 * `paysync serve`: the webhook receiver alone. Refuses to start, in one line, on an unsafe
 * signing set-up, pending migrations, or a Redis that may evict jobs; then runs until
 * SIGTERM/SIGINT, stops intake, lets in-flight requests finish, closes Redis and the
 * database, and exits 0.
 */
export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'run the webhook receiver (POST $PAYSYNC_WEBHOOK_PATH, /healthz, /readyz); metrics and the ops surfaces on $PAYSYNC_OPS_PORT',
    )
    .addHelpText('after', TENANTS_HELP)
    .action((_flags: object, invoked: Command) => runDaemonRoles('serve', ['receiver'], invoked));
}
