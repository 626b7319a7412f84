import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { StartupError, startupErrorFrom, type Clock, type Component } from '../lifecycle/index.ts';
import type { MetricsServer } from '../metrics/index.ts';
import {
  createTenantsFront,
  type TenantsFront,
  tenantsReadiness,
  type TenantsReadiness,
} from '../receiver/index.ts';
import { createDaemon, type Daemon, type DaemonRole } from './create-daemon.ts';
import { metricsServerComponent } from './metrics-component.ts';

/** One tenant's name and its whole configuration (its database, account, queue prefix). */
export interface DaemonTenant {
  readonly name: string;
  readonly config: Config;
}

export interface TenantsDaemonOptions {
  /** At least one; their process-wide settings (port, webhook path, limits) are the first's. */
  readonly tenants: readonly DaemonTenant[];
  readonly logger: Logger;
  readonly roles: readonly DaemonRole[];
  /** The one receiver port; 0 picks a free one. @defaultValue the first tenant's `config.port` */
  readonly port?: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  /** Port of the metrics server of a process without the receiver role. @defaultValue `config.metricsPort` */
  readonly metricsPort?: number;
  /** @defaultValue the machine's clock */
  readonly now?: Clock;
}

export interface TenantsDaemon {
  /** In start order: every tenant's, then the front. Stop them in reverse. */
  readonly components: readonly Component[];
  /** Each tenant's daemon, by name. */
  readonly tenants: ReadonlyMap<string, Daemon>;
  /** The one receiver port, for the receiver role. */
  readonly front: TenantsFront | undefined;
  /** `/metrics`, `/healthz`, `/readyz` of a process without the receiver role. */
  readonly metricsServer: MetricsServer | undefined;
  readiness(): Promise<TenantsReadiness>;
}

/**
 * One set of processes for every tenant (issue 25, docs/tenants.md): a daemon per tenant, each
 * on its own database, queue prefix, service account and scheduled tasks, in this process. The
 * receiver role listens on one port and hands `POST <webhook path>/<tenant>` to that tenant's
 * receiver; the other roles share one metrics server. A tenant that cannot start (its database
 * or credentials) stops the start, named: nothing is left open.
 */
export async function createTenantsDaemon(options: TenantsDaemonOptions): Promise<TenantsDaemon> {
  const [first] = options.tenants;
  if (!first) throw new StartupError('no tenant to serve: the tenants file lists none');
  const daemons = new Map<string, Daemon>();
  const closeAll = async () => {
    // Nothing has started: stopping the connections component of each closes what it opened.
    for (const daemon of daemons.values()) {
      for (const component of [...daemon.components].reverse()) {
        await component.stop().catch(() => undefined);
      }
    }
  };
  for (const tenant of options.tenants) {
    try {
      daemons.set(
        tenant.name,
        await createDaemon({
          config: tenant.config,
          logger: options.logger.child({ tenant: tenant.name }),
          roles: options.roles,
          tenant: tenant.name,
          shared: true,
          ...(options.now ? { now: options.now } : {}),
        }),
      );
    } catch (error) {
      await closeAll();
      const refusal = startupErrorFrom(error);
      const reason = refusal?.message ?? (error instanceof Error ? error.message : String(error));
      // Each tenant is migrated with `paysync tenants migrate` (`migrate` needs --tenant here).
      throw new StartupError(
        `tenant ${tenant.name}: ${reason.replace('`paysync migrate`', '`paysync tenants migrate`')}`,
      );
    }
  }
  const entries = [...daemons.entries()];
  const readiness = () =>
    tenantsReadiness(entries.map(([name, daemon]) => ({ name, readiness: daemon.readiness })));
  const components = entries.flatMap(([, daemon]) => daemon.components);
  let front: TenantsFront | undefined;
  let metricsServer: MetricsServer | undefined;
  if (options.roles.includes('receiver')) {
    front = createTenantsFront({
      tenants: entries.map(([name, daemon]) => ({
        name,
        app: daemon.receiver!.app,
        readiness: daemon.readiness,
      })),
      webhookPath: first.config.webhook.path,
      port: options.port ?? first.config.port,
      maxInFlight: first.config.receiver.maxInFlight,
      logger: options.logger,
      ...(options.host !== undefined ? { host: options.host } : {}),
    });
    // Last to start, first to stop: intake stops before any tenant's workers drain.
    components.push(front);
  } else {
    const made = metricsServerComponent({
      port: options.metricsPort ?? first.config.metricsPort,
      ...(options.host !== undefined ? { host: options.host } : {}),
      role: options.roles.includes('workers') ? 'work' : 'schedule',
      logger: options.logger,
      readiness,
    });
    metricsServer = made.server;
    components.unshift(made.component);
  }
  return { components, tenants: daemons, front, metricsServer, readiness };
}
