import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Readiness } from './check-readiness.ts';
import { METRICS_MOVED, metricsMovedWarning } from './health.route.ts';
import { senderPort } from './http-listener.ts';

/** One tenant behind the front: its receiver's app and its own readiness. */
export interface FrontTenant {
  readonly name: string;
  /**
   * The tenant's receiver app (createReceiverServer with `listen: false`); undefined while the
   * tenant is not running (it could not start), when its path answers 503.
   */
  readonly app: RequestListener | undefined;
  /** Why the tenant is not running, when it is not. */
  readonly unavailable?: string | undefined;
  readonly readiness: () => Promise<Readiness>;
}

/** `/readyz` of a process serving several tenants: each tenant's answer, and all of them. */
export interface TenantsReadiness extends Readiness {
  readonly tenants: readonly ({ readonly tenant: string } & Readiness)[];
}

export interface TenantsFrontOptions {
  readonly tenants: readonly FrontTenant[];
  /** `PAYSYNC_WEBHOOK_PATH`: a tenant's webhooks come to `<path>/<tenant>`. */
  readonly webhookPath: string;
  readonly port: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  /** `PAYSYNC_RECEIVER_MAX_IN_FLIGHT`: the port's connection cap follows it. */
  readonly maxInFlight: number;
  /** `PAYSYNC_CONNECTIONS_PER_CLIENT`: open connections per client address; 0: no limit. */
  readonly connectionsPerClient: number;
  readonly logger: Logger;
  /** How long stop() lets in-flight requests finish before cutting them. @defaultValue 10000 */
  readonly drainMs?: number;
  /** `Retry-After` of a tenant not running: when it is tried again. @defaultValue 30 */
  readonly retryAfterSeconds?: number;
}

export interface TenantsFront extends Component {
  readonly port: number;
  readonly url: string;
  /** Each tenant's and the process's readiness (what `/readyz` answers). */
  readiness(): Promise<TenantsReadiness>;
}

/** A path segment decoded; left as sent when it does not decode (no tenant has a % in its name). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Each tenant's readiness, read side by side, and the process's: ready when every tenant is;
 * each reason names its tenant.
 */
export async function tenantsReadiness(
  tenants: readonly Pick<FrontTenant, 'name' | 'readiness'>[],
): Promise<TenantsReadiness> {
  const each = await Promise.all(
    tenants.map(async (tenant) => ({ tenant: tenant.name, ...(await tenant.readiness()) })),
  );
  return {
    ready: each.every((tenant) => tenant.ready),
    reasons: each.flatMap((tenant) =>
      tenant.reasons.map((reason) => `tenant ${tenant.tenant}: ${reason}`),
    ),
    tenants: each,
  };
}

/**
 * The one port of a process serving several tenants (docs/tenants.md). `POST <path>/<tenant>`
 * goes to that tenant's receiver, which checks the signature with that tenant's secret and
 * stores the event in that tenant's inbox only; there is no route from one tenant's path to
 * another's books. `/healthz` and `/readyz` (200 or 503, naming no tenant) answer for the whole
 * process; an unknown tenant's path is a plain 404. Metrics, the detailed `/readyz`, the ops API
 * and the dashboards are on the ops port (createTenantsOpsRoutes in src/ops).
 */
export function createTenantsFront(options: TenantsFrontOptions): TenantsFront {
  const host = options.host ?? '0.0.0.0';
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const base = options.webhookPath.replace(/\/+$/, '');
  let draining = false;

  const readiness = () => tenantsReadiness(options.tenants);
  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };
  const refuse = (response: ServerResponse, status: number, error: string, message: string) =>
    json(response, status, { error, message });

  const warnMetricsMoved = metricsMovedWarning(options.logger);
  /** The 404 of a path that does not exist: it names no tenant. */
  const notFound = (response: ServerResponse) =>
    refuse(response, 404, 'not_found', 'no such route');

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const [path = '/', query] = (request.url ?? '/').split(/\?(.*)/s);
    if (draining) {
      response.setHeader('Connection', 'close');
      return refuse(response, 503, 'shutting_down', 'the receiver is stopping; retry later');
    }
    if (path.startsWith(`${base}/`)) {
      const name = decoded(path.slice(base.length + 1));
      const tenant = byName.get(name);
      // Anonymous callers learn nothing of which tenants exist.
      if (!tenant) return notFound(response);
      const app = tenant.app;
      if (!app) {
        // The service retries: nothing is lost while this tenant is paused.
        response.setHeader('Retry-After', String(options.retryAfterSeconds ?? 30));
        return refuse(
          response,
          503,
          'tenant_unavailable',
          `tenant ${tenant.name} is not running (${tenant.unavailable ?? 'starting'}); retry later`,
        );
      }
      // The tenant's app answers its webhook path: it never sees the tenant's name.
      request.url = query === undefined ? base : `${base}?${query}`;
      return app(request, response);
    }
    if (request.method === 'GET' && path === '/healthz') return json(response, 200, { ok: true });
    if (request.method === 'GET' && path === '/readyz') {
      // Whether the process is ready, not which tenants it serves nor why one is not: those
      // are on the ops port's /readyz.
      readiness().then(
        (result) => json(response, result.ready ? 200 : 503, { ready: result.ready }),
        (error: unknown) =>
          refuse(response, 503, 'not_ready', `readiness could not be read: ${String(error)}`),
      );
      return;
    }
    if (request.method === 'GET' && path === '/metrics') {
      warnMetricsMoved();
      return json(response, 404, METRICS_MOVED);
    }
    notFound(response);
  };

  const door = senderPort('receiver front', {
    port: options.port,
    host,
    maxInFlight: options.maxInFlight,
    connectionsPerClient: options.connectionsPerClient,
  });
  return {
    name: 'receiver front',
    readiness,
    get port() {
      return door.port;
    },
    get url() {
      return door.url;
    },
    async start() {
      await door.listen(handler);
      options.logger.info(
        { url: door.url, paths: options.tenants.map((tenant) => `${base}/${tenant.name}`) },
        `receiver listening for ${options.tenants.length} tenants`,
      );
    },
    async stop() {
      draining = true;
      if (await door.close(options.drainMs ?? 10_000)) {
        options.logger.info('receiver front stopped');
      }
    },
  };
}
