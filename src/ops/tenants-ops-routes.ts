import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { AuthThrottle } from './auth-throttle.ts';
import { bearerOf, opsRefusals } from './ops-auth.ts';
import type { TenantsAccess } from './tenants-access.ts';
import { sendOpsError, sendTooManyFailures } from './ops-errors.ts';
import { OPS_API_BASE } from './ops-routes.ts';
import type { TenantOpsApi } from './mount-ops.ts';

/** One tenant's ops API behind the process's ops port. */
export interface OpsPortTenant {
  readonly name: string;
  /** Its ops API, while it runs and has admin tokens. */
  readonly ops: () => TenantOpsApi | undefined;
  /** Why it is not running, while it is paused (docs/tenants.md, One tenant down). */
  readonly unavailable?: () => string | undefined;
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
 * The ops API and the dashboards of a process serving several tenants, for its ops port
 * (docs/tenants.md): `/api/v1/tenants/<tenant>/…` goes to that tenant's ops API when the
 * request carries one of that tenant's admin tokens; a token of other tenants gets the 404 of
 * a route that does not exist, and no valid token at all 401, whether the tenant exists or not.
 * Everything else goes to the dashboards (`/login`, `/tenants/<tenant>/…`).
 */
export function createTenantsOpsRoutes(options: {
  readonly tenants: readonly OpsPortTenant[];
  /** The dashboards' front (createTenantsDashboard). */
  readonly dashboard: RequestHandler;
  readonly throttle: AuthThrottle;
  /** Who may see which tenant: a paused tenant's own token gets 503, not 401. */
  readonly access?: TenantsAccess;
  /** `Retry-After` of a paused tenant: when it is tried again. @defaultValue 30 */
  readonly retryAfterSeconds?: number;
}): RequestHandler {
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const { throttle } = options;
  const router = express.Router();
  router.use(OPS_API_BASE, (request: Request, response: Response, next: NextFunction) => {
    void (async () => {
      if (!(await throttle.admits(request, response, 'api', sendTooManyFailures))) return;
      const scoped = /^\/tenants\/([^/]+)(\/.*)?$/.exec(request.path);
      if (!scoped) {
        return sendOpsError(
          response,
          404,
          'tenant_required',
          `this process serves several tenants: each one's ops API is at ${OPS_API_BASE}/tenants/<tenant>/…`,
        );
      }
      const authorization = request.headers.authorization;
      const name = decoded(scoped[1]!);
      const tenant = byName.get(name);
      const ops = tenant?.ops();
      const paused = !ops ? tenant?.unavailable?.() : undefined;
      if (
        paused !== undefined &&
        options.access?.tenantsOfToken(bearerOf(authorization)).includes(name)
      ) {
        // As its webhooks and its dashboard: the service's retry, and the operator's, both wait.
        const seconds = options.retryAfterSeconds ?? 30;
        response.setHeader('Retry-After', String(seconds));
        return sendOpsError(
          response,
          503,
          'tenant_unavailable',
          `tenant ${name} is not running (${paused}); it is tried again every ${seconds} s, retry later`,
        );
      }
      if (!ops?.acceptsBearer(authorization)) {
        if (options.tenants.some((other) => other.ops()?.acceptsBearer(authorization))) {
          return sendOpsError(response, 404, 'not_found', 'no such route');
        }
        opsRefusals.inc({ surface: 'api', reason: authorization ? 'wrong' : 'missing' });
        if (authorization) await throttle.failed(request, 'api');
        response.setHeader('WWW-Authenticate', 'Bearer realm="paysync"');
        return sendOpsError(response, 401, 'unauthorized', 'authentication required');
      }
      const query = request.originalUrl.indexOf('?');
      request.url = `${OPS_API_BASE}${scoped[2] ?? ''}${query < 0 ? '' : request.originalUrl.slice(query)}`;
      ops.app(request, response);
    })().catch(next);
  });
  router.use(options.dashboard);
  return router;
}
