import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler, type Response } from 'express';
import type { Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Readiness } from './check-readiness.ts';
import { mountHealthRoutes, metricsMovedWarning } from '../metrics/index.ts';
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
 * and the dashboards are on the ops port (createTenantsOpsRoutes in src/ops). An Express app,
 * like every other port, with the health routes every port mounts (mountHealthRoutes).
 */
export function createTenantsFront(options: TenantsFrontOptions): TenantsFront {
  const host = options.host ?? '0.0.0.0';
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const base = options.webhookPath.replace(/\/+$/, '');
  let draining = false;

  const readiness = () => tenantsReadiness(options.tenants);
  const refuse = (response: Response, status: number, error: string, message: string) =>
    response.status(status).json({ error, message });
  /** The 404 of a path that does not exist: it names no tenant. */
  const notFound = (response: Response) => refuse(response, 404, 'not_found', 'no such route');

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // As the tenants' names are written: `/Webhooks/acme` and `/webhooks/acme/` are no tenant's.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use((_request, response, next) => {
    if (!draining) return next();
    response.setHeader('Connection', 'close');
    refuse(response, 503, 'shutting_down', 'the receiver is stopping; retry later');
  });
  app.all(`${base}/:tenant`, (request, response) => {
    const tenant = byName.get(request.params.tenant!);
    // Anonymous callers learn nothing of which tenants exist.
    if (!tenant) return notFound(response);
    const tenantApp = tenant.app;
    if (!tenantApp) {
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
    const query = request.url.indexOf('?');
    request.url = query < 0 ? base : `${base}${request.url.slice(query)}`;
    tenantApp(request, response);
  });
  // Whether the process is ready, not which tenants it serves nor why one is not: those are on
  // the ops port's /readyz.
  mountHealthRoutes(app, {
    readiness,
    readyOnly: true,
    metrics: { moved: metricsMovedWarning(options.logger) },
  });
  app.use((_request, response) => notFound(response));
  // A tenant segment that does not decode (`%zz`) is no tenant's.
  const onError: ErrorRequestHandler = (error, _request, response, next) => {
    if (response.headersSent) return next(error);
    if ((error as { status?: unknown }).status === 400) return notFound(response);
    options.logger.error({ err: error }, 'receiver front request failed');
    refuse(response, 500, 'internal_error', 'unexpected error; it was logged');
  };
  app.use(onError);

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
      await door.listen(app);
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
