import type { Command } from 'commander';
import type { DaemonRole } from '../../daemon/index.ts';
import { commandContext, commandLogger } from '../context.ts';

/** The `--help` note of every daemon role on serving several tenants. */
export const TENANTS_HELP = `
With PAYSYNC_TENANTS_FILE listing several tenants and no --tenant (nor PAYSYNC_TENANT), one
process serves every tenant: each tenant's webhooks come to POST $PAYSYNC_WEBHOOK_PATH/<tenant>
on one port, and /readyz names each tenant (docs/tenants.md).`;

/**
 * What `start`, `work` and `schedule` share (and `serve` with several tenants): load the
 * config, build the roles' components, and run them until SIGTERM/SIGINT. A refusal to start
 * is one line and exit 1. Without `--tenant` on a tenants file listing several, the process
 * serves every tenant (docs/tenants.md).
 */
export async function runDaemonRoles(
  command: string,
  roles: readonly DaemonRole[],
  invoked: Command,
): Promise<void> {
  // Loaded here, not at the top, so `paysync --help` stays fast.
  const { runDaemon, runTenantsDaemon } = await import('../../daemon/index.ts');
  const { tenantsServedTogether } = await import('../tenant-selection.ts');
  const together = tenantsServedTogether(invoked);
  if (together) {
    const [first, ...others] = together.tenants.map((tenant) => tenant.config);
    await runTenantsDaemon({
      tenants: together.tenants.map(({ name, config }) => ({ name, config })),
      logger: await commandLogger(command, [first!, ...others]),
      roles,
    });
    return;
  }
  const { config, logger } = await commandContext(command, invoked);
  // A StartupError is reported by the CLI's error boundary as one line, exit 1.
  await runDaemon({ config, logger, roles });
}
