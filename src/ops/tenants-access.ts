import { AdminTokens } from './ops-auth.ts';

/** A tenant and its admin tokens: its own, the process's inherited, and `admin_tokens`' naming it. */
export interface TenantTokens {
  readonly name: string;
  readonly tokens: readonly string[];
}

/**
 * Who may see which tenant, in a process serving several: a token (or a session opened with
 * it) sees each tenant whose admin tokens hold it. Every tenant's tokens are tried, each in
 * constant time, so the time taken says nothing of which tenants a token sees.
 */
export class TenantsAccess {
  readonly #tenants: readonly { readonly name: string; readonly tokens: AdminTokens }[];

  constructor(tenants: readonly TenantTokens[]) {
    this.#tenants = tenants
      .filter((tenant) => tenant.tokens.length > 0)
      .map((tenant) => ({ name: tenant.name, tokens: new AdminTokens(tenant.tokens) }));
  }

  /** The tenants a token sees, in the file's order; none for a token of no tenant. */
  tenantsOfToken(token: string | undefined): string[] {
    return this.#tenants.filter((t) => t.tokens.accepts(token)).map((t) => t.name);
  }
}
