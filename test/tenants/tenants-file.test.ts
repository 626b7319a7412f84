import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import {
  chooseTenant,
  loadTenants,
  TenantChoiceError,
  TenantsError,
  type TenantChoiceRefusal,
} from '../../src/tenants/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'paysync-tenants-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIVE_KEY = 'sk_live_0123456789abcdef';
const baseEnv = {
  PAYSYNC_UPSTREAM_URL: 'https://api.example.test',
  PAYSYNC_WEBHOOK_SECRET: 'whsec_process_wide_secret',
  PAYSYNC_EXPORT_DIR: '/srv/books/exports/',
  PAYSYNC_QUEUE_PREFIX: 'acme',
  SHOP_LIVE_KEY: LIVE_KEY,
};

/** The refusal of a tenant choice: data, still a TenantsError (a configuration error, exit 2). */
function refusalOf(choose: () => unknown): TenantChoiceRefusal {
  try {
    choose();
  } catch (error) {
    expect(error).toBeInstanceOf(TenantsError);
    expect(error).toBeInstanceOf(TenantChoiceError);
    return (error as TenantChoiceError).refusal;
  }
  throw new Error('a tenant was chosen');
}

let files = 0;
function load(yaml: string, env: Record<string, string> = baseEnv) {
  files += 1;
  const file = join(dir, `tenants-${files}.yaml`);
  writeFileSync(file, yaml);
  return { file, tenants: () => loadTenants({ ...env, PAYSYNC_TENANTS_FILE: file }, dir) };
}

const SHOP = `  - name: shop-live
    merchant_id: mch_1
    environment: live
    api_key: { env: SHOP_LIVE_KEY }
    database: { sqlite: ./shop-live.db }
`;

describe('the tenants file', () => {
  it('without PAYSYNC_TENANTS_FILE there is one tenant, "default", configured exactly as before', () => {
    const env = { PAYSYNC_MERCHANT_ID: 'mch_1', PAYSYNC_API_KEY: LIVE_KEY };
    const tenants = loadTenants(env, dir);
    expect(tenants.file).toBeUndefined();
    expect(tenants.tenants.map((tenant) => tenant.name)).toEqual(['default']);
    expect(tenants.tenants[0]!.config).toEqual(loadConfig(env));
    expect(chooseTenant(tenants, undefined).name).toBe('default');
    expect(refusalOf(() => chooseTenant(tenants, 'shop-live'))).toEqual({
      code: 'no_tenants_file',
      tenant: 'shop-live',
    });
  });

  it('gives each tenant its own account, secrets, database, queue prefix and folders', () => {
    writeFileSync(join(dir, 'sandbox.key'), 'sk_sandbox_from_a_file\n');
    writeFileSync(join(dir, 'sandbox.whsec'), 'whsec_sandbox_secret\n');
    const { tenants } = load(
      `tenants:
${SHOP}    settings:
      PAYSYNC_BOOKS_TIMEZONE: Europe/Paris
      PAYSYNC_LOW_BALANCE: "transfer:XOF:50000"
  - name: shop-sandbox
    merchant_id: mch_1
    environment: sandbox
    service_url: https://sandbox.example.test
    api_key: { file: ./sandbox.key }
    webhook_secret: { file: ./sandbox.whsec }
    database: { postgres_schema: shop_sandbox, url: { env: BOOKS_SERVER } }
`,
      { ...baseEnv, BOOKS_SERVER: 'postgres://books@db.internal:5432/paysync' },
    );
    const [live, sandbox] = tenants().tenants;
    expect(live!.config).toMatchObject({
      merchantId: 'mch_1',
      environment: 'live',
      apiKey: LIVE_KEY,
      upstreamUrl: 'https://api.example.test',
      // The process's webhook secret is never a tenant's: this one has none of its own.
      webhookSecrets: [],
      databaseUrl: 'sqlite:./shop-live.db',
      processing: { queuePrefix: 'acme:shop-live' },
      exports: { dir: '/srv/books/exports/shop-live/' },
      receipts: { dir: 'data/receipts/shop-live/' },
      books: { timeZone: 'Europe/Paris' },
    });
    expect(live!.config.balances.lowBalance).toHaveLength(1);
    expect(sandbox!.config).toMatchObject({
      environment: 'sandbox',
      apiKey: 'sk_sandbox_from_a_file',
      upstreamUrl: 'https://sandbox.example.test',
      webhookSecrets: ['whsec_sandbox_secret'],
      databaseUrl:
        'postgres://books@db.internal:5432/paysync?options=-c+search_path%3Dshop_sandbox',
      processing: { queuePrefix: 'acme:shop-sandbox' },
      books: { timeZone: 'UTC' },
    });
    expect(sandbox!.config.balances.lowBalance).toEqual([]);
  });

  it('chooses the tenant named, the only one, or refuses to guess among several', () => {
    const one = load(`tenants:\n${SHOP}`).tenants();
    expect(chooseTenant(one, undefined).name).toBe('shop-live');
    const two = load(`tenants:
${SHOP}${SHOP.replace('shop-live', 'shop-eu').replace('mch_1', 'mch_2').replace('shop-live.db', 'shop-eu.db')}`);
    const tenants = two.tenants();
    expect(chooseTenant(tenants, 'shop-eu').config.merchantId).toBe('mch_2');
    // The CLI words these with --tenant (test/cli/refusal-lines.test.ts, tenants-cli.db.test.ts).
    expect(refusalOf(() => chooseTenant(tenants, undefined))).toEqual({
      code: 'tenant_not_named',
      file: two.file,
      tenants: ['shop-live', 'shop-eu'],
    });
    expect(() => chooseTenant(tenants, undefined)).toThrow(
      `${two.file} lists 2 tenants (shop-live, shop-eu) and none was chosen`,
    );
    expect(refusalOf(() => chooseTenant(tenants, 'acme'))).toEqual({
      code: 'tenant_not_found',
      tenant: 'acme',
      file: two.file,
      tenants: ['shop-live', 'shop-eu'],
    });
  });

  it('gives an admin token of admin_tokens to exactly the tenants it names, beside their own', () => {
    // Live tenants: 32 characters or more (issue 38).
    const finance = 'tok_finance_0123456789abcdef0123456789';
    const own = 'tok_shop_live_own_0123456789abcdef';
    const { tenants } = load(
      `tenants:
${SHOP}    settings:
      PAYSYNC_ADMIN_TOKEN: { env: SHOP_LIVE_ADMIN }
${SHOP.replace('shop-live', 'shop-eu').replace('mch_1', 'mch_2').replace('shop-live.db', 'shop-eu.db')}${SHOP.replace('shop-live', 'acme').replace('mch_1', 'mch_3').replace('shop-live.db', 'acme.db')}admin_tokens:
  - token: { env: OPS_FINANCE_TOKEN }
    tenants: [shop-live, shop-eu, shop-eu]
`,
      { ...baseEnv, OPS_FINANCE_TOKEN: finance, SHOP_LIVE_ADMIN: own },
    );
    const tokens = Object.fromEntries(
      tenants().tenants.map((tenant) => [tenant.name, tenant.config.ops.adminTokens]),
    );
    expect(tokens).toEqual({ 'shop-live': [own, finance], 'shop-eu': [finance], acme: [] });
  });

  it('refuses a scoped token shorter than 32 characters for a live tenant, naming the line and the variable', () => {
    const { tenants } = load(
      `tenants:
${SHOP}admin_tokens:
  - token: { env: OPS_FINANCE_TOKEN }
    tenants: [shop-live]
`,
      { ...baseEnv, OPS_FINANCE_TOKEN: 'tok_short' },
    );
    expect(() => tenants()).toThrow(
      /tenant "shop-live": PAYSYNC_ADMIN_TOKEN is too short for live: each token needs at least 32 characters → make one with: openssl rand -hex 32$/,
    );
  });

  // Each bad file is refused with one line naming the file, the line, the tenant and the field.
  const refusals: [string, string, RegExp][] = [
    ['not YAML', 'tenants: [ {', /, line \d: not valid YAML or JSON/],
    ['no tenants', 'tenants: []', /, line 1: tenants: must list at least one tenant$/],
    [
      'a bad name',
      `tenants:\n${SHOP.replace('shop-live', 'Shop Live')}`,
      /, line 2: tenant "Shop Live": name: must be lower-case letters, digits and -/,
    ],
    [
      'a missing merchant id',
      `tenants:\n${SHOP.replace('    merchant_id: mch_1\n', '')}`,
      /, line 2: tenant "shop-live": merchant_id: is required$/,
    ],
    [
      'an API key written in the file',
      `tenants:\n${SHOP.replace('{ env: SHOP_LIVE_KEY }', LIVE_KEY)}`,
      /, line 5: tenant "shop-live": api_key: must say where the value comes from, \{ env: VARIABLE \} or \{ file: \/path \}, never the value itself$/,
    ],
    [
      'a key variable that is not set',
      `tenants:\n${SHOP.replace('SHOP_LIVE_KEY', 'NOT_SET_KEY')}`,
      /, line 5: tenant "shop-live": api_key: the environment variable NOT_SET_KEY is not set → set it/,
    ],
    [
      'a key file that is missing',
      `tenants:\n${SHOP.replace('{ env: SHOP_LIVE_KEY }', '{ file: ./missing.key }')}`,
      /, line 5: tenant "shop-live": api_key: cannot read .*missing\.key \(ENOENT\) → fix the path/,
    ],
    [
      'an unknown field',
      `tenants:\n${SHOP}    colour: blue\n`,
      /, line 7: tenant "shop-live": unknown field "colour" → the fields here are name, merchant_id, environment/,
    ],
    [
      'a bad setting',
      `tenants:\n${SHOP}    settings:\n      PAYSYNC_BOOKS_TIMEZONE: Mars/Olympus\n`,
      /, line 8: tenant "shop-live": PAYSYNC_BOOKS_TIMEZONE="Mars\/Olympus" is invalid: must be an IANA time zone/,
    ],
    [
      'a process-wide setting',
      `tenants:\n${SHOP}    settings:\n      PAYSYNC_REDIS_URL: redis://other:6379\n`,
      /, line 8: tenant "shop-live": settings\.PAYSYNC_REDIS_URL: is set for the whole process, not per tenant → set it in the environment$/,
    ],
    [
      'a setting a field sets',
      `tenants:\n${SHOP}    settings:\n      PAYSYNC_DATABASE_URL: sqlite:./other.db\n`,
      /settings\.PAYSYNC_DATABASE_URL: comes from the tenant's database → set database instead$/,
    ],
    [
      'a secret setting written in the file',
      `tenants:\n${SHOP}    settings:\n      PAYSYNC_ALERT_SLACK_URL: https://hooks.slack.com/services/T0/B0/secret-token\n`,
      /settings\.PAYSYNC_ALERT_SLACK_URL: is a secret: say where it comes from/,
    ],
    [
      'a variable paysync does not have',
      `tenants:\n${SHOP}    settings:\n      PAYSYNC_COLOUR: blue\n`,
      /settings\.PAYSYNC_COLOUR: not a paysync variable/,
    ],
    [
      'a schema without a PostgreSQL server',
      `tenants:\n${SHOP.replace('{ sqlite: ./shop-live.db }', '{ postgres_schema: shop_live }')}`,
      /, line 6: tenant "shop-live": database\.postgres_schema needs a PostgreSQL server → set PAYSYNC_DATABASE_URL/,
    ],
    [
      'a name listed twice',
      `tenants:\n${SHOP}${SHOP.replace('mch_1', 'mch_2').replace('shop-live.db', 'b.db')}`,
      /, line 7: tenant "shop-live" is listed twice \(first at line 2\)/,
    ],
    [
      'two tenants on one database',
      `tenants:\n${SHOP}${SHOP.replace('name: shop-live', 'name: shop-eu').replace('mch_1', 'mch_2')}`,
      /, line 7: tenant "shop-eu" uses the same database \(sqlite:\.\/shop-live\.db\) as tenant "shop-live" → each tenant's books must be their own$/,
    ],
    [
      'an admin token naming a tenant the file does not list',
      `tenants:\n${SHOP}admin_tokens:\n  - token: { env: SHOP_LIVE_KEY }\n    tenants:\n      - shop-live\n      - acme-live\n`,
      /, line 11: admin token 1: tenants: no tenant named "acme-live" in this file → name tenants of its tenants list \(shop-live\), or remove the name$/,
    ],
    [
      'an admin token written in the file',
      `tenants:\n${SHOP}admin_tokens:\n  - token: ${LIVE_KEY}\n    tenants: [shop-live]\n`,
      /, line 8: admin token 1: token: must say where the value comes from, \{ env: VARIABLE \} or \{ file: \/path \}, never the value itself$/,
    ],
    [
      'an admin token whose variable is not set',
      `tenants:\n${SHOP}admin_tokens:\n  - token: { env: NOT_SET_TOKEN }\n    tenants: [shop-live]\n`,
      /, line 8: admin token 1: token: the environment variable NOT_SET_TOKEN is not set → set it/,
    ],
    [
      'an admin token naming no tenant',
      `tenants:\n${SHOP}admin_tokens:\n  - token: { env: SHOP_LIVE_KEY }\n    tenants: []\n`,
      /, line 9: admin token 1: tenants: must name at least one tenant$/,
    ],
    [
      'an unknown field of an admin token',
      `tenants:\n${SHOP}admin_tokens:\n  - token: { env: SHOP_LIVE_KEY }\n    tenants: [shop-live]\n    role: admin\n`,
      /, line 10: admin token 1: unknown field "role" → the fields here are token, tenants$/,
    ],
    [
      'two tenants on one account',
      `tenants:\n${SHOP}${SHOP.replace('name: shop-live', 'name: shop-eu').replace('shop-live.db', 'b.db')}`,
      /tenant "shop-eu" is the same account \(merchant id and environment live\) as tenant "shop-live"/,
    ],
  ];
  it.each(refusals)('refuses %s in one line', (_what, yaml, expected) => {
    const { file, tenants } = load(yaml);
    let error: unknown;
    try {
      tenants();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TenantsError);
    const message = (error as Error).message;
    expect(message.startsWith(`PAYSYNC_TENANTS_FILE ${file}`)).toBe(true);
    expect(message).toMatch(expected);
    expect(message).not.toContain('\n');
    expect(message).not.toContain(LIVE_KEY);
    expect(message).not.toContain('secret-token');
  });

  it('refuses a file that cannot be read, naming it', () => {
    expect(() => loadTenants({ PAYSYNC_TENANTS_FILE: './nowhere.yaml' }, dir)).toThrow(
      `PAYSYNC_TENANTS_FILE ${join(dir, 'nowhere.yaml')}: cannot be read (ENOENT) → fix the path, or unset PAYSYNC_TENANTS_FILE for one set of books from the PAYSYNC_* variables`,
    );
  });
});
