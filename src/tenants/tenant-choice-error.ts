/**
 * Why no tenant of the tenants file could be chosen, as data: a `code` and the facts it needs.
 * The doors word it for their audience (the CLI names `--tenant`, in
 * src/cli/format/refusal-lines.ts); `message` is a plain line for logs and for a door that
 * does not word it.
 */
import { TenantsError } from './tenants-error.ts';

export type TenantChoiceRefusal =
  /** The tenant named is not in the file. */
  | {
      readonly code: 'tenant_not_found';
      readonly tenant: string;
      readonly file: string;
      /** The file's tenants, to name the choices. */
      readonly tenants: readonly string[];
    }
  /** The file lists several tenants and none was named. */
  | {
      readonly code: 'tenant_not_named';
      readonly file: string;
      readonly tenants: readonly string[];
    }
  /** A tenant other than `default` named where there is no tenants file. */
  | { readonly code: 'no_tenants_file'; readonly tenant: string };

function plainMessage(refusal: TenantChoiceRefusal): string {
  switch (refusal.code) {
    case 'tenant_not_found':
      return `no tenant "${refusal.tenant}" in ${refusal.file} (its tenants: ${refusal.tenants.join(', ')})`;
    case 'tenant_not_named':
      return `${refusal.file} lists ${refusal.tenants.length} tenants (${refusal.tenants.join(', ')}) and none was chosen`;
    case 'no_tenants_file':
      return `tenant "${refusal.tenant}" chosen, but there is no tenants file, so there is one set of books (from the PAYSYNC_* variables)`;
  }
}

/**
 * No tenant chosen: a configuration error (exit 2 in the CLI, like every {@link TenantsError})
 * whose `refusal` says why.
 */
export class TenantChoiceError extends TenantsError {
  constructor(readonly refusal: TenantChoiceRefusal) {
    super(plainMessage(refusal));
  }
}
