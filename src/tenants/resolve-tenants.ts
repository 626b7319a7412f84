import { readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import {
  CONFIG_VARIABLES,
  ConfigError,
  hidePasswordInUrl,
  loadConfig,
  SECRET_VARIABLES,
  type Config,
  type EnvSource,
} from '../config/index.ts';
import { TenantChoiceError } from './tenant-choice-error.ts';
import { TenantsError } from './tenants-error.ts';
import {
  readTenantsFile,
  type SecretSource,
  type TenantEntry,
  type TenantsFile,
} from './tenants-file.ts';

/** The variable naming the tenants file; without it paysync keeps one set of books. */
export const TENANTS_FILE_VARIABLE = 'PAYSYNC_TENANTS_FILE';
/** The variable choosing one tenant of the file, as `--tenant` does (a pm2 entry per tenant). */
export const TENANT_VARIABLE = 'PAYSYNC_TENANT';
/** The name of the one tenant built from the `PAYSYNC_*` variables when there is no file. */
export const SINGLE_TENANT = 'default';

/** One set of books: its name, and the config its commands and roles run with. */
export interface Tenant {
  readonly name: string;
  /** The environment the config was loaded from: the process's, with the tenant's own values. */
  readonly env: EnvSource;
  readonly config: Config;
}

export interface Tenants {
  /** The tenants file, resolved; undefined for one set of books from the `PAYSYNC_*` variables. */
  readonly file: string | undefined;
  readonly tenants: readonly Tenant[];
}

/**
 * Variables for the whole process, never for one tenant: they would make no sense per tenant,
 * or would let one tenant's settings reach another's (one Redis and one queue naming scheme, one
 * set of ports and one log).
 */
const PROCESS_WIDE = new Set([
  'PAYSYNC_REDIS_URL',
  'PAYSYNC_PORT',
  'PAYSYNC_METRICS_PORT',
  'PAYSYNC_OPS_PORT',
  'PAYSYNC_HOST',
  'PAYSYNC_OPS_HOST',
  'PAYSYNC_OPS_HTTPS',
  'PAYSYNC_METRICS_TOKEN',
  'PAYSYNC_TRUST_PROXY',
  'PAYSYNC_CONNECTIONS_PER_CLIENT',
  'PAYSYNC_AUTH_FAILURES_PER_MINUTE',
  'PAYSYNC_OPS_SESSION_IDLE_MINUTES',
  'PAYSYNC_OPS_SESSION_MAX_HOURS',
  'PAYSYNC_LOG_LEVEL',
  'PAYSYNC_QUEUE_PREFIX',
  'PAYSYNC_WORKER_CONCURRENCY',
  'PAYSYNC_JOB_LOCK_MS',
  'PAYSYNC_SHUTDOWN_TIMEOUT_MS',
  'PAYSYNC_WEBHOOK_PATH',
  'PAYSYNC_RECEIVER_MAX_BACKLOG',
  'PAYSYNC_RECEIVER_MAX_IN_FLIGHT',
]);

/** Variables a tenant's own fields set, with the field to use instead. */
const FROM_FIELDS: Readonly<Record<string, string>> = {
  PAYSYNC_MERCHANT_ID: 'merchant_id',
  PAYSYNC_ENVIRONMENT: 'environment',
  PAYSYNC_UPSTREAM_URL: 'service_url',
  PAYSYNC_API_KEY: 'api_key',
  PAYSYNC_WEBHOOK_SECRET: 'webhook_secret',
  PAYSYNC_DATABASE_URL: 'database',
};

const DEFAULT_PREFIX = 'paysync';
const DEFAULT_EXPORT_DIR = './data/exports/';
const DEFAULT_RECEIPTS_DIR = './data/receipts/';

/** A folder of the process's setting with the tenant's name under it: `./data/exports/shop-live/`. */
const folderOf = (base: string | undefined, fallback: string, name: string) =>
  `${posix.join((base ?? fallback).replace(/\/+$/, ''), name)}/`;

/**
 * Every tenant, resolved and validated: from `PAYSYNC_TENANTS_FILE` when it is set, otherwise
 * the one tenant `default` built from the `PAYSYNC_*` variables exactly as before. Throws
 * {@link TenantsError} (a `ConfigError`) naming the file, the line, the tenant and the field,
 * or the plain `ConfigError` of a bad variable when there is no file.
 */
export function loadTenants(env: EnvSource, cwd = process.cwd()): Tenants {
  const fileName = env[TENANTS_FILE_VARIABLE]?.trim();
  if (!fileName) {
    return { file: undefined, tenants: [{ name: SINGLE_TENANT, env, config: loadConfig(env) }] };
  }
  const file = readTenantsFile(fileName, cwd);
  const { [TENANTS_FILE_VARIABLE]: _file, [TENANT_VARIABLE]: _chosen, ...base } = env;
  const sharedTokens = sharedAdminTokens(file, base, cwd);
  const tenants = file.tenants.map((entry, index) => {
    const at = (field: readonly (string | number)[]) =>
      `PAYSYNC_TENANTS_FILE ${file.path}, line ${file.lineOf(index, field)}: tenant "${entry.name}"`;
    const tenantEnv = tenantEnvironment(entry, base, cwd, at);
    const shared = sharedTokens.get(entry.name);
    if (shared) {
      // Beside the tenant's own (or the process's inherited) tokens: each one is accepted.
      tenantEnv.PAYSYNC_ADMIN_TOKEN = [tenantEnv.PAYSYNC_ADMIN_TOKEN, ...shared]
        .filter((token) => token !== undefined && token.trim() !== '')
        .join(',');
    }
    let config: Config;
    try {
      config = loadConfig(tenantEnv);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const setting = entry.settings && error.variable in entry.settings;
      const field = setting
        ? ['settings', error.variable]
        : FROM_FIELDS[error.variable]
          ? [FROM_FIELDS[error.variable]!]
          : [];
      throw new TenantsError(`${at(field)}: ${error.message}`);
    }
    return { name: entry.name, env: Object.freeze(tenantEnv), config };
  });
  refuseSharedBooks(file.path, tenants, cwd, (index) => file.lines[index]!);
  return { file: file.path, tenants };
}

/**
 * The `admin_tokens` of the file, read from where each says, by the tenants each may see. A
 * token is a tenant's admin token like its own `PAYSYNC_ADMIN_TOKEN`: its API and dashboard
 * accept it, and the dashboard's tenant switcher of its session lists exactly these tenants.
 */
function sharedAdminTokens(
  file: TenantsFile,
  base: EnvSource,
  cwd: string,
): ReadonlyMap<string, readonly string[]> {
  const byTenant = new Map<string, string[]>();
  file.adminTokens.forEach((entry, index) => {
    const where = `PAYSYNC_TENANTS_FILE ${file.path}, line ${file.adminTokenLineOf(index, ['token'])}: admin token ${index + 1}: token`;
    const token = readSecret(entry.token, base, cwd, where);
    if (token.includes(',') || /\s/.test(token)) {
      // PAYSYNC_ADMIN_TOKEN lists tokens with commas: one with a comma would become two.
      throw new TenantsError(
        `${where}: the token holds a comma or a space → make one without, e.g. with openssl rand -base64 32`,
      );
    }
    for (const name of new Set(entry.tenants)) {
      byTenant.set(name, [...(byTenant.get(name) ?? []), token]);
    }
  });
  return byTenant;
}

/** The process's environment with this tenant's values: its fields, then its settings. */
function tenantEnvironment(
  entry: TenantEntry,
  base: EnvSource,
  cwd: string,
  at: (field: readonly (string | number)[]) => string,
): Record<string, string | undefined> {
  const read = (source: SecretSource, field: readonly (string | number)[]) =>
    readSecret(source, base, cwd, `${at(field)}: ${field.join('.')}`);
  const tenantEnv: Record<string, string | undefined> = {
    ...base,
    PAYSYNC_MERCHANT_ID: entry.merchant_id,
    PAYSYNC_ENVIRONMENT: entry.environment,
    PAYSYNC_UPSTREAM_URL: entry.service_url ?? base.PAYSYNC_UPSTREAM_URL,
    PAYSYNC_API_KEY: read(entry.api_key, ['api_key']),
    // Never another tenant's secret, nor the process's: only this tenant's own, or none.
    PAYSYNC_WEBHOOK_SECRET: entry.webhook_secret
      ? read(entry.webhook_secret, ['webhook_secret'])
      : undefined,
    PAYSYNC_DATABASE_URL: databaseUrl(entry, base, read, at),
    PAYSYNC_QUEUE_PREFIX: `${base.PAYSYNC_QUEUE_PREFIX?.trim() || DEFAULT_PREFIX}:${entry.name}`,
    PAYSYNC_EXPORT_DIR: folderOf(base.PAYSYNC_EXPORT_DIR, DEFAULT_EXPORT_DIR, entry.name),
    PAYSYNC_RECEIPTS_DIR: folderOf(base.PAYSYNC_RECEIPTS_DIR, DEFAULT_RECEIPTS_DIR, entry.name),
  };
  for (const [variable, value] of Object.entries(entry.settings ?? {})) {
    const where = `${at(['settings', variable])}: settings.${variable}`;
    if (!CONFIG_VARIABLES.includes(variable)) {
      throw new TenantsError(
        `${where}: not a paysync variable → see docs/configuration.md for the PAYSYNC_* variables`,
      );
    }
    if (PROCESS_WIDE.has(variable)) {
      throw new TenantsError(
        `${where}: is set for the whole process, not per tenant → set it in the environment`,
      );
    }
    const field = FROM_FIELDS[variable];
    if (field) {
      throw new TenantsError(`${where}: comes from the tenant's ${field} → set ${field} instead`);
    }
    const secret = (SECRET_VARIABLES as readonly string[]).includes(variable);
    if (typeof value === 'object') {
      tenantEnv[variable] = read(value, ['settings', variable]);
    } else if (secret) {
      throw new TenantsError(
        `${where}: is a secret: say where it comes from, { env: VARIABLE } or { file: /path }, never the value itself`,
      );
    } else {
      tenantEnv[variable] = String(value);
    }
  }
  return tenantEnv;
}

function databaseUrl(
  entry: TenantEntry,
  base: EnvSource,
  read: (source: SecretSource, field: readonly (string | number)[]) => string,
  at: (field: readonly (string | number)[]) => string,
): string {
  const database = entry.database;
  if ('sqlite' in database) return `sqlite:${database.sqlite}`;
  const server = database.url
    ? read(database.url, ['database', 'url'])
    : base.PAYSYNC_DATABASE_URL?.trim();
  if (!server || !/^postgres(ql)?:\/\//.test(server) || !URL.canParse(server)) {
    throw new TenantsError(
      `${at(['database'])}: database.postgres_schema needs a PostgreSQL server${server ? `, not ${hidePasswordInUrl(server)}` : ''} → set PAYSYNC_DATABASE_URL to postgres://…, or give database.url: { env: VARIABLE }`,
    );
  }
  const url = new URL(server);
  url.searchParams.set('options', `-c search_path=${database.postgres_schema}`);
  return url.toString();
}

function readSecret(source: SecretSource, env: EnvSource, cwd: string, where: string): string {
  if ('env' in source) {
    const value = env[source.env]?.trim();
    if (!value) {
      throw new TenantsError(
        `${where}: the environment variable ${source.env} is not set → set it, or read the value from a file with { file: /path }`,
      );
    }
    return value;
  }
  const path = resolve(cwd, source.file);
  let value: string;
  try {
    value = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new TenantsError(
      `${where}: cannot read ${path} (${(error as { code?: string }).code ?? (error as Error).message}) → fix the path or its permissions`,
    );
  }
  if (!value) throw new TenantsError(`${where}: ${path} is empty → write the value into it`);
  return value;
}

/** Two tenants on one database, or on one account of the service, would mix their books. */
function refuseSharedBooks(
  path: string,
  tenants: readonly Tenant[],
  cwd: string,
  lineOf: (index: number) => number,
): void {
  const databases = new Map<string, number>();
  const accounts = new Map<string, number>();
  tenants.forEach((tenant, index) => {
    const config = tenant.config;
    const database = config.databaseUrl.startsWith('sqlite:')
      ? `sqlite:${resolve(cwd, config.databaseUrl.slice('sqlite:'.length))}`
      : config.databaseUrl;
    const account = `${config.merchantId} ${config.environment}`;
    const clash = (first: number | undefined, what: string) => {
      if (first === undefined) return;
      throw new TenantsError(
        `PAYSYNC_TENANTS_FILE ${path}, line ${lineOf(index)}: tenant "${tenant.name}" ${what} as tenant "${tenants[first]!.name}" → each tenant's books must be their own`,
      );
    };
    clash(
      databases.get(database),
      `uses the same database (${hidePasswordInUrl(config.databaseUrl)})`,
    );
    clash(
      accounts.get(account),
      `is the same account (merchant id and environment ${config.environment})`,
    );
    databases.set(database, index);
    accounts.set(account, index);
  });
}

/**
 * The tenant a command works on: the one named (`--tenant`, or `PAYSYNC_TENANT`), or the only
 * one. Throws {@link TenantChoiceError} when the name is unknown, or when there are several and
 * none is named.
 */
export function chooseTenant(tenants: Tenants, name: string | undefined): Tenant {
  const names = tenants.tenants.map((tenant) => tenant.name);
  if (!tenants.file) {
    if (name && name !== SINGLE_TENANT) throw noTenantsFile(name);
    return tenants.tenants[0]!;
  }
  if (name) {
    const chosen = tenants.tenants.find((tenant) => tenant.name === name);
    if (!chosen) {
      throw new TenantChoiceError({
        code: 'tenant_not_found',
        tenant: name,
        file: tenants.file,
        tenants: names,
      });
    }
    return chosen;
  }
  if (tenants.tenants.length === 1) return tenants.tenants[0]!;
  throw new TenantChoiceError({ code: 'tenant_not_named', file: tenants.file, tenants: names });
}

/** A tenant named where there is no tenants file, so no tenant but `default`. */
export function noTenantsFile(name: string): TenantChoiceError {
  return new TenantChoiceError({ code: 'no_tenants_file', tenant: name });
}
