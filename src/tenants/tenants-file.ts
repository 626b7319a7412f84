import { z } from 'zod';
import { readSettingsFile } from '../config/index.ts';
import { TenantsError } from './tenants-error.ts';

/**
 * The tenants file (`PAYSYNC_TENANTS_FILE`, YAML or JSON): one entry per set of books. Secrets
 * are never written in it: the API key, the webhook secret and any secret setting name where
 * they come from, an environment variable or a file.
 */

/** A tenant's name: it is a URL path segment, a queue prefix part, a schema name and a label. */
export const TENANT_NAME = /^[a-z][a-z0-9-]{0,39}$/;

const secretSource = z.union(
  [
    z.strictObject({
      env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'),
    }),
    z.strictObject({ file: z.string().trim().min(1, 'must be a file path') }),
  ],
  {
    error:
      'must say where the value comes from, { env: VARIABLE } or { file: /path }, never the value itself',
  },
);
export type SecretSource = z.infer<typeof secretSource>;

const database = z.union(
  [
    z.strictObject({ sqlite: z.string().trim().min(1, 'must be a file path') }),
    z.strictObject({
      postgres_schema: z
        .string()
        .regex(
          /^[a-z_][a-z0-9_]{0,62}$/,
          'must be a lower-case PostgreSQL schema name (a-z, 0-9, _)',
        ),
      /** The server; defaults to `PAYSYNC_DATABASE_URL`. */
      url: secretSource.optional(),
    }),
  ],
  {
    error:
      'must be { sqlite: ./data/<tenant>.db } or { postgres_schema: <schema> } (with url: { env: VARIABLE } for another server than PAYSYNC_DATABASE_URL)',
  },
);
export type TenantDatabase = z.infer<typeof database>;

const settingValue = z.union([z.string(), z.number(), z.boolean(), secretSource]);

const tenant = z.strictObject({
  name: z
    .string({ error: 'is required' })
    .regex(
      TENANT_NAME,
      'must be lower-case letters, digits and -, starting with a letter (at most 40), for example shop-live',
    ),
  merchant_id: z.string({ error: 'is required' }).trim().min(1, 'is required'),
  environment: z.enum(['live', 'sandbox'], { error: 'must be live or sandbox' }),
  /** Defaults to `PAYSYNC_UPSTREAM_URL`. */
  service_url: z.string().trim().optional(),
  api_key: secretSource,
  webhook_secret: secretSource.optional(),
  database,
  /** Any tenant-scoped `PAYSYNC_*` variable, for this tenant only. */
  settings: z.record(z.string(), settingValue).optional(),
});
export type TenantEntry = z.infer<typeof tenant>;

/**
 * An admin token of several tenants (the ops API and the dashboard): where the token comes from,
 * never the token, and the tenants it may see.
 */
const adminToken = z.strictObject({
  token: secretSource,
  tenants: z
    .array(z.string({ error: 'must be tenant names' }), {
      error: 'must be a list of tenant names, for example [shop-live, shop-sandbox]',
    })
    .min(1, 'must name at least one tenant'),
});
export type AdminTokenEntry = z.infer<typeof adminToken>;

const tenantsFile = z.strictObject({
  tenants: z
    .array(tenant, { error: 'must be a list of tenants' })
    .min(1, 'must list at least one tenant'),
  /** Admin tokens naming the tenants each may see, beside each tenant's own. */
  admin_tokens: z
    .array(adminToken, {
      error: 'must be a list of { token: { env: VARIABLE }, tenants: [<tenant>, …] }',
    })
    .optional(),
});

export interface TenantsFile {
  /** The file, resolved. */
  readonly path: string;
  readonly tenants: readonly TenantEntry[];
  /** The `admin_tokens` list: tokens of several tenants; empty when the file has none. */
  readonly adminTokens: readonly AdminTokenEntry[];
  /** The line of a field of an admin token (`['tenants', 1]`), or of its entry. */
  adminTokenLineOf(index: number, path: readonly (string | number)[]): number;
  /** Line of each tenant's entry, for messages about a tenant as a whole. */
  readonly lines: readonly number[];
  /** The line of a field of a tenant (`['settings', 'PAYSYNC_…']`), or of its entry. */
  lineOf(index: number, path: readonly (string | number)[]): number;
}

/** The fields an object of the file may have, for the message about an unknown one. */
function fieldsAt(path: readonly PropertyKey[]): string[] {
  const inTenant = path.slice(2);
  if (path[0] === 'admin_tokens')
    return inTenant.length === 0 ? ['token', 'tenants'] : ['env', 'file'];
  if (inTenant.length === 0) return Object.keys(tenant.shape);
  if (inTenant[0] === 'database') return ['sqlite', 'postgres_schema', 'url'];
  return ['env', 'file'];
}

/**
 * Reads and checks the file's shape: YAML syntax, every field, unique names. Throws
 * {@link TenantsError} with one line, `PAYSYNC_TENANTS_FILE <file>, line <n>: tenant "<name>":
 * <field>: <problem>`. What needs the environment (secrets, settings) is checked when a tenant
 * is resolved.
 */
export function readTenantsFile(file: string, cwd: string = process.cwd()): TenantsFile {
  const read = readSettingsFile(
    'PAYSYNC_TENANTS_FILE',
    file,
    'fix the path, or unset PAYSYNC_TENANTS_FILE for one set of books from the PAYSYNC_* variables',
    cwd,
  );
  if ('problem' in read) throw new TenantsError(read.problem);
  const { path, lineOf: lineAt } = read.file;
  const raw = read.file.value;
  const result = tenantsFile.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const [top, index, ...field] = issue.path;
    let where = issue.path.join('.');
    if (top === 'tenants' && typeof index === 'number') {
      const entries = (raw as { tenants: unknown[] }).tenants;
      const name = (entries[index] as { name?: unknown } | null)?.name;
      where = `${typeof name === 'string' ? `tenant "${name}"` : `tenant ${index + 1}`}${field.length > 0 ? `: ${field.join('.')}` : ''}`;
    } else if (top === 'admin_tokens' && typeof index === 'number') {
      where = `admin token ${index + 1}${field.length > 0 ? `: ${field.join('.')}` : ''}`;
    }
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      const known = issue.path.length === 0 ? ['tenants', 'admin_tokens'] : fieldsAt(issue.path);
      message = `unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')} → the fields here are ${known.join(', ')}`;
    }
    throw new TenantsError(
      `PAYSYNC_TENANTS_FILE ${path}, line ${lineAt([...issue.path, ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [])])}: ${where ? `${where}: ` : ''}${message}`,
    );
  }
  const tenants = result.data.tenants;
  const lineOf = (index: number, fieldPath: readonly (string | number)[]) =>
    lineAt(['tenants', index, ...fieldPath]);
  const seen = new Map<string, number>();
  tenants.forEach((entry, index) => {
    const first = seen.get(entry.name);
    if (first !== undefined) {
      throw new TenantsError(
        `PAYSYNC_TENANTS_FILE ${path}, line ${lineOf(index, ['name'])}: tenant "${entry.name}" is listed twice (first at line ${lineOf(first, ['name'])}) → give each tenant its own name`,
      );
    }
    seen.set(entry.name, index);
  });
  const adminTokens = result.data.admin_tokens ?? [];
  const adminTokenLineOf = (index: number, fieldPath: readonly (string | number)[]) =>
    lineAt(['admin_tokens', index, ...fieldPath]);
  adminTokens.forEach((entry, index) => {
    entry.tenants.forEach((name, position) => {
      if (seen.has(name)) return;
      throw new TenantsError(
        `PAYSYNC_TENANTS_FILE ${path}, line ${adminTokenLineOf(index, ['tenants', position])}: admin token ${index + 1}: tenants: no tenant named "${name.slice(0, 40)}" in this file → name tenants of its tenants list (${[...seen.keys()].join(', ')}), or remove the name`,
      );
    });
  });
  return {
    path,
    tenants,
    adminTokens,
    adminTokenLineOf,
    lines: tenants.map((_, index) => lineOf(index, [])),
    lineOf,
  };
}
