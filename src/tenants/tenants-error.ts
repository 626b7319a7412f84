import { ConfigError } from '../config/index.ts';

/**
 * The tenants file or a tenant in it is wrong. A configuration error (exit 2 in the CLI, a
 * refused start for the daemon) whose one-line message names the file, the line, the tenant
 * and the field.
 */
export class TenantsError extends ConfigError {
  constructor(message: string) {
    super('PAYSYNC_TENANTS_FILE', message);
  }
}
