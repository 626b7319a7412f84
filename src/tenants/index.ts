/**
 * Tenants: several sets of books in one deployment (docs/tenants.md). Each tenant is its own
 * database (a SQLite file or a PostgreSQL schema), its own service account and its own queue
 * prefix, listed in `PAYSYNC_TENANTS_FILE`; without the file there is one tenant, `default`,
 * built from the `PAYSYNC_*` variables exactly as before.
 */
export { TenantChoiceError, type TenantChoiceRefusal } from './tenant-choice-error.ts';
export { TenantsError } from './tenants-error.ts';
export {
  readTenantsFile,
  TENANT_NAME,
  type TenantEntry,
  type TenantsFile,
} from './tenants-file.ts';
export {
  chooseTenant,
  loadTenants,
  noTenantsFile,
  SINGLE_TENANT,
  TENANT_VARIABLE,
  TENANTS_FILE_VARIABLE,
  type Tenant,
  type Tenants,
} from './resolve-tenants.ts';
