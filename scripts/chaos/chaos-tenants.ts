/**
 * The tenants of a chaos run with `--tenants 2` (issue 25): one set of paysync processes keeps
 * the books of a live-like and a sandbox account, each served by a simulator of its own (its own
 * merchant id, API key and webhook secret), each booked in its own database (a SQLite file, or a
 * PostgreSQL schema). The tenants file names the secrets by environment variable, never by value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ChaosTenantPlan {
  readonly name: string;
  readonly environment: 'live' | 'sandbox';
}

/** The tenants of a run with a tenants file, in order: the first is the live-like one. */
export const CHAOS_TENANTS: readonly ChaosTenantPlan[] = [
  { name: 'chaos-live', environment: 'live' },
  { name: 'chaos-sandbox', environment: 'sandbox' },
];

/** The environment variables the tenants file names for a tenant's secrets. */
export function secretVariables(index: number): { apiKey: string; webhookSecret: string } {
  return {
    apiKey: `CHAOS_TENANT_${index + 1}_API_KEY`,
    webhookSecret: `CHAOS_TENANT_${index + 1}_WEBHOOK_SECRET`,
  };
}

export interface ChaosTenantEntry extends ChaosTenantPlan {
  readonly merchantId: string;
  readonly serviceUrl: string;
  /** `{ sqlite: <file> }` or `{ postgres_schema: <schema> }` (on PAYSYNC_DATABASE_URL's server). */
  readonly database: { sqlite: string } | { postgres_schema: string };
}

/**
 * Writes the tenants file (JSON, which the YAML reader takes as it is) and returns its path.
 * A live tenant may deliver its relay events over http to the loopback consumer of the run
 * (`PAYSYNC_RELAY_ALLOW_HTTP`, `PAYSYNC_RELAY_ALLOWED_HOSTS`): a live account refuses both by
 * default (docs/relay.md, "Safety").
 */
export function writeChaosTenantsFile(dir: string, entries: readonly ChaosTenantEntry[]): string {
  const file = join(dir, 'tenants.json');
  const tenants = entries.map((entry, index) => {
    const variables = secretVariables(index);
    return {
      name: entry.name,
      merchant_id: entry.merchantId,
      environment: entry.environment,
      service_url: entry.serviceUrl,
      api_key: { env: variables.apiKey },
      webhook_secret: { env: variables.webhookSecret },
      database: entry.database,
      ...(entry.environment === 'live'
        ? {
            settings: {
              PAYSYNC_RELAY_ALLOW_HTTP: 'true',
              PAYSYNC_RELAY_ALLOWED_HOSTS: '127.0.0.1',
            },
          }
        : {}),
    };
  });
  writeFileSync(file, `${JSON.stringify({ tenants }, null, 2)}\n`);
  return file;
}
