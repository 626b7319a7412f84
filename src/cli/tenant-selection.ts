import type { Command } from 'commander';
import { readEnvironment, type EnvSource } from '../config/index.ts';
import {
  chooseTenant,
  loadTenants,
  noTenantsFile,
  SINGLE_TENANT,
  TENANT_VARIABLE,
  TENANTS_FILE_VARIABLE,
  TenantChoiceError,
  TenantsError,
  type Tenants,
} from '../tenants/index.ts';
import { tenantRefusalLine } from './format/refusal-lines.ts';

/** Commands that work on no tenant's books (or on all of them, `tenants`). */
const NO_TENANT = new Set(['sim', 'demo', 'tenants']);
/**
 * Without --tenant these work on every tenant of the file: the daemon's roles serve them all in
 * one process, `doctor` checks each (as `paysync tenants check`).
 */
const EVERY_TENANT = new Set(['start', 'serve', 'work', 'schedule', 'doctor']);

/** Where the program keeps, for the command it runs, the tenants that selectTenant chose. */
const SERVED_TOGETHER = 'servedTogether';
/** Where the program keeps, for the command it runs, the environment of the tenant chosen. */
const TENANT_ENVIRONMENT = 'tenantEnvironment';

/**
 * The tenants the running command works on together: a daemon role (`start`, `serve`, `work`,
 * `schedule`) or `doctor` run without `--tenant` on a tenants file listing several, as the
 * program's hook recorded them on the command line being run (never a module's variable: two
 * runs in one process do not see each other's). Undefined otherwise.
 */
export function tenantsServedTogether(command: Command): Tenants | undefined {
  return command.optsWithGlobals<{ [SERVED_TOGETHER]?: Tenants }>()[SERVED_TOGETHER];
}

/**
 * The environment the running command loads its config from: that of the tenant of the tenants
 * file it works on, as the program's hook recorded it on the command line being run (like
 * {@link tenantsServedTogether}), else the process's own ({@link readEnvironment}).
 */
export function commandEnvironment(command: Command): EnvSource {
  return (
    command.optsWithGlobals<{ [TENANT_ENVIRONMENT]?: EnvSource }>()[TENANT_ENVIRONMENT] ??
    readEnvironment()
  );
}

const topLevel = (command: Command): Command =>
  command.parent?.parent ? topLevel(command.parent) : command;

/**
 * Before a command runs: when `PAYSYNC_TENANTS_FILE` is set, chooses the tenant it works on
 * (`--tenant`, else `PAYSYNC_TENANT`, else the only one) and records that tenant's environment
 * on the program ({@link commandEnvironment}; or, for a daemon role or `doctor` serving several,
 * the tenants: {@link tenantsServedTogether}), so the command loads that tenant's config and
 * books. Without the file nothing changes. A bad file, an unknown tenant or a missing choice
 * stops the command with one line (exit 2).
 */
export function selectTenant(program: Command, action: Command): void {
  try {
    recordTenant(program, topLevel(action).name());
  } catch (error) {
    // Worded here, with the flag; still a configuration error: one line, exit 2.
    if (error instanceof TenantChoiceError) {
      throw new TenantsError(tenantRefusalLine(error.refusal).line);
    }
    throw error;
  }
}

function recordTenant(program: Command, command: string): void {
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
  if (tenants.file && !named && tenants.tenants.length > 1 && EVERY_TENANT.has(command)) {
    // Each tenant's config is already loaded and checked; the process env stays as it is.
    program.setOptionValue(SERVED_TOGETHER, tenants);
    return;
  }
  const tenant = chooseTenant(tenants, named || undefined);
  if (tenants.file) program.setOptionValue(TENANT_ENVIRONMENT, tenant.env);
}
