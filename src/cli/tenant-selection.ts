import type { Command } from 'commander';
import { readEnvironment, useEnvironment } from '../config/index.ts';
import {
  chooseTenant,
  loadTenants,
  noTenantsFile,
  SINGLE_TENANT,
  TENANT_VARIABLE,
  TENANTS_FILE_VARIABLE,
  TenantsError,
} from '../tenants/index.ts';

/** Commands that work on no tenant's books (or on all of them, `tenants`). */
const NO_TENANT = new Set(['sim', 'demo', 'tenants']);
/** The daemon's roles: for now one process serves one tenant. */
const DAEMON_ROLES = new Set(['start', 'serve', 'work', 'schedule']);

const topLevel = (command: Command): Command =>
  command.parent?.parent ? topLevel(command.parent) : command;

/**
 * Before a command runs: when `PAYSYNC_TENANTS_FILE` is set, chooses the tenant it works on
 * (`--tenant`, else `PAYSYNC_TENANT`, else the only one) and makes that tenant's environment the
 * one every config read sees, so each command loads that tenant's config and books. Without the
 * file nothing changes. A bad file, an unknown tenant or a missing choice stops the command with
 * one line (exit 2).
 */
export function selectTenant(program: Command, action: Command): void {
  const command = topLevel(action).name();
  if (NO_TENANT.has(command)) return;
  const env = readEnvironment();
  const named = (program.opts<{ tenant?: string }>().tenant ?? env[TENANT_VARIABLE])?.trim();
  // Without a tenants file the command reads its config as it always has; only a --tenant
  // naming a tenant that cannot exist is refused.
  if (!env[TENANTS_FILE_VARIABLE]?.trim()) {
    if (named && named !== SINGLE_TENANT) throw noTenantsFile(named);
    return;
  }
  const tenants = loadTenants(env);
  if (tenants.file && !named && tenants.tenants.length > 1 && DAEMON_ROLES.has(command)) {
    throw new TenantsError(
      `${tenants.file} lists ${tenants.tenants.length} tenants (${tenants.tenants.map((t) => t.name).join(', ')}), and one process serves one tenant for now → run one \`paysync ${command} --tenant <name>\` per tenant, each with its own PAYSYNC_PORT (docs/tenants.md)`,
    );
  }
  const tenant = chooseTenant(tenants, named || undefined);
  if (tenants.file) useEnvironment(tenant.env);
}
