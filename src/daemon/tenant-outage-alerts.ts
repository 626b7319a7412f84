import type { Logger } from 'pino';
import {
  createAlertRuntime,
  maskNumbersInText,
  sendUnrecordedAlert,
  type AlertMessage,
  type AlertRuntime,
} from '../alerts/index.ts';
import type { Config } from '../config/index.ts';
import { reasonOf } from '../error-reason.ts';
import type { Clock } from '../lifecycle/index.ts';

/** Says on a tenant's own alert channels when it cannot start, and when it starts after all. */
export interface TenantOutageAlerts {
  /** The tenant could not start: the first time of an outage, its channels hear it. */
  down(tenant: { readonly name: string; readonly config: Config }, reason: string): void;
  /** The tenant started: if its channels heard of an outage, they hear it resolved. */
  up(name: string): void;
  /** Waits for messages on their way and closes the sinks. */
  close(): Promise<void>;
}

interface Outage {
  readonly runtime: AlertRuntime;
  readonly since: Date;
  readonly reason: string;
}

/**
 * `tenant_unavailable` (docs/tenants.md, One tenant down). The books of a tenant that cannot
 * start may be what is down, so the alert is not recorded: it goes once, without retries,
 * through the sinks the tenant's own settings configure and route it to (its Slack, e-mail,
 * webhook and the log), never another tenant's.
 */
export function tenantOutageAlerts(options: {
  readonly logger: Logger;
  readonly now: Clock;
  /** How often the tenant is tried again, for the message. */
  readonly retryMs: number;
}): TenantOutageAlerts {
  const outages = new Map<string, Outage>();
  /** Down tenants whose channels cannot be set up: said once in the log, not at every retry. */
  const unreachable = new Set<string>();
  const sending = new Set<Promise<void>>();

  const send = (tenant: string, runtime: AlertRuntime, message: AlertMessage) => {
    const sent = sendUnrecordedAlert(runtime, message).then(
      (results) => {
        for (const result of results.filter((r) => !r.delivered)) {
          options.logger.warn(
            { tenant, sink: result.sink, reason: result.error },
            `tenant ${tenant}: the ${message.event === 'resolved' ? 'resolved ' : ''}tenant_unavailable alert could not be sent to ${result.sink}`,
          );
        }
      },
      (error: unknown) =>
        options.logger.warn(
          { tenant, reason: reasonOf(error) },
          `tenant ${tenant}: the tenant_unavailable alert could not be sent`,
        ),
    );
    // A resolved outage's sinks are done with once its message is out.
    const done =
      message.event === 'resolved' ? sent.then(() => runtime.close()).catch(() => undefined) : sent;
    sending.add(done);
    void done.finally(() => sending.delete(done));
  };

  return {
    down(tenant, reason) {
      if (outages.has(tenant.name) || unreachable.has(tenant.name)) return;
      let runtime: AlertRuntime;
      try {
        runtime = createAlertRuntime(
          tenant.config.alerts,
          options.logger.child({ tenant: tenant.name }),
          {
            now: options.now,
            environment: tenant.config.environment,
          },
        );
      } catch (error) {
        // A bad alert rule file may be why it cannot start: the log says it, nothing else can.
        unreachable.add(tenant.name);
        options.logger.warn(
          { tenant: tenant.name, reason: reasonOf(error) },
          `tenant ${tenant.name}: its alert channels cannot be set up, so only this log says it is not running`,
        );
        return;
      }
      const since = options.now();
      const said = maskNumbersInText(reason);
      outages.set(tenant.name, { runtime, since, reason: said });
      send(tenant.name, runtime, {
        event: 'firing',
        alertId: undefined,
        kind: 'tenant_unavailable',
        severity: 'critical',
        title: `Tenant ${tenant.name} is not running`,
        body: `paysync could not start the books of tenant ${tenant.name}: ${said}. Its webhooks are answered 503 with Retry-After, so the service retries them and nothing is lost; the other tenants run. It is tried again every ${Math.round(options.retryMs / 1000)} s, and this channel hears when it starts.`,
        hint: 'paysync tenants check',
        subject: null,
        detail: { tenant: tenant.name, reason: said },
        at: since.toISOString(),
      });
    },
    up(name) {
      unreachable.delete(name);
      const outage = outages.get(name);
      if (!outage) return;
      outages.delete(name);
      const at = options.now();
      const minutes = Math.max(1, Math.round((at.getTime() - outage.since.getTime()) / 60_000));
      send(name, outage.runtime, {
        event: 'resolved',
        alertId: undefined,
        kind: 'tenant_unavailable',
        severity: 'critical',
        title: `Tenant ${name} is not running`,
        body: `Tenant ${name} started at ${at.toISOString()}, about ${minutes} min after it was found not running (${outage.reason}). It takes its webhooks again; those the service retried meanwhile are booked as they come.`,
        hint: 'paysync tenants check',
        subject: null,
        detail: { tenant: name, since: outage.since.toISOString() },
        at: at.toISOString(),
      });
    },
    async close() {
      await Promise.allSettled([...sending]);
      for (const { runtime } of outages.values()) await runtime.close().catch(() => undefined);
      outages.clear();
    },
  };
}
