import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { metricsRegistry } from '../metrics/index.ts';
import type { Readiness } from './check-readiness.ts';
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
  /** The tenant's ops API (an app answering under `/api/v1`), when it has admin tokens. */
  readonly ops?:
    | {
        readonly app: RequestListener;
        /** Whether an `Authorization` header carries one of this tenant's admin tokens. */
        readonly acceptsBearer: (authorization: string | undefined) => boolean;
      }
    | undefined;
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
  readonly logger: Logger;
  /** How long stop() lets in-flight requests finish before cutting them. @defaultValue 10000 */
  readonly drainMs?: number;
  /** `Retry-After` of a tenant not running: when it is tried again. @defaultValue 30 */
  readonly retryAfterSeconds?: number;
  /** Where the ops API lives (`/api/v1`): each tenant's is under `<base>/tenants/<tenant>/`. */
  readonly opsBase?: string;
  /**
   * The tenants' dashboards (the login, each tenant's pages under `/tenants/<tenant>/`): the
   * paths it answers, and its app. @defaultValue none: those paths answer 404
   */
  readonly dashboard?: {
    readonly handles: (path: string) => boolean;
    readonly app: RequestListener;
  };
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
 * another's books. `/healthz`, `/readyz` (503 naming each tenant that is not ready) and
 * `/metrics` (every tenant's series, labelled `tenant`) answer for the whole process.
 */
export function createTenantsFront(options: TenantsFrontOptions): TenantsFront {
  const host = options.host ?? '0.0.0.0';
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const names = options.tenants.map((tenant) => tenant.name).join(', ');
  const base = options.webhookPath.replace(/\/+$/, '');
  let draining = false;

  const readiness = () => tenantsReadiness(options.tenants);
  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };
  const refuse = (response: ServerResponse, status: number, error: string, message: string) =>
    json(response, status, { error, message });

  const opsBase = options.opsBase;
  /** The ops API's own 404: another tenant's routes look exactly like routes that do not exist. */
  const noSuchRoute = (response: ServerResponse) =>
    json(response, 404, { error: { code: 'not_found', message: 'no such route' } });
  /**
   * `<opsBase>/tenants/<tenant>/…` goes to that tenant's ops API when the request carries one
   * of that tenant's admin tokens. A token of another tenant gets the 404 of a route that does
   * not exist, never the tenant's data nor a sign that it exists.
   */
  const routeOps = (
    request: IncomingMessage,
    response: ServerResponse,
    rest: string,
    query: string | undefined,
  ) => {
    const scoped = /^\/tenants\/([^/]+)(\/.*)?$/.exec(rest);
    if (!scoped) {
      return json(response, 404, {
        error: {
          code: 'tenant_required',
          message: `this process serves several tenants: each one's ops API is at ${opsBase}/tenants/<tenant>/…, one of ${names}`,
        },
      });
    }
    const ops = byName.get(decoded(scoped[1]!))?.ops;
    const authorization = request.headers.authorization;
    if (!ops?.acceptsBearer(authorization)) {
      // A token of other tenants: the 404 of a route that does not exist. No valid token at
      // all: 401, whether the tenant exists or not. Either way nothing says which tenants exist.
      if (options.tenants.some((other) => other.ops?.acceptsBearer(authorization))) {
        return noSuchRoute(response);
      }
      response.setHeader('WWW-Authenticate', 'Bearer realm="paysync"');
      return json(response, 401, {
        error: { code: 'unauthorized', message: 'authentication required' },
      });
    }
    request.url = `${opsBase}${scoped[2] ?? ''}${query === undefined ? '' : `?${query}`}`;
    return ops.app(request, response);
  };

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const [path = '/', query] = (request.url ?? '/').split(/\?(.*)/s);
    if (draining) {
      response.setHeader('Connection', 'close');
      return refuse(response, 503, 'shutting_down', 'the receiver is stopping; retry later');
    }
    if (path.startsWith(`${base}/`)) {
      const name = decoded(path.slice(base.length + 1));
      const tenant = byName.get(name);
      if (!tenant) {
        return refuse(
          response,
          404,
          'unknown_tenant',
          `no tenant named "${name.slice(0, 40)}" here: post to ${base}/<tenant>, one of ${names}`,
        );
      }
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
    if (path === base) {
      return refuse(
        response,
        404,
        'tenant_required',
        `this process serves several tenants: post to ${base}/<tenant>, one of ${names}`,
      );
    }
    if (opsBase && (path === opsBase || path.startsWith(`${opsBase}/`))) {
      return routeOps(request, response, path.slice(opsBase.length), query);
    }
    if (request.method === 'GET' && path === '/healthz') return json(response, 200, { ok: true });
    if (request.method === 'GET' && path === '/readyz') {
      readiness().then(
        (result) => json(response, result.ready ? 200 : 503, result),
        (error: unknown) =>
          refuse(response, 503, 'not_ready', `readiness could not be read: ${String(error)}`),
      );
      return;
    }
    if (request.method === 'GET' && path === '/metrics') {
      metricsRegistry.metrics().then(
        (text) => {
          response.writeHead(200, { 'Content-Type': metricsRegistry.contentType });
          response.end(text);
        },
        (error: unknown) => {
          options.logger.error({ err: error }, 'metrics could not be read');
          refuse(response, 500, 'internal_error', 'metrics could not be read; it was logged');
        },
      );
      return;
    }
    if (options.dashboard?.handles(path)) return options.dashboard.app(request, response);
    refuse(response, 404, 'not_found', 'no such route');
  };

  const door = senderPort('receiver front', {
    port: options.port,
    host,
    maxInFlight: options.maxInFlight,
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
