/**
 * Ops surfaces: the authenticated ops API (`/api/v1`), the server-rendered dashboard and
 * bull-board. A door: it reads and acts through the domain components' index.ts.
 */
export { createOpsRouter, opsStartupLine, QUEUE_BOARD_PATH } from './create-ops-router.ts';
export type { OpsDependencies } from './ops-dependencies.ts';
export { OPS_API_BASE, OPS_ROUTES, type OpsRouteDefinition } from './ops-routes.ts';
export { errorBody } from './ops-api.schema.ts';
export {
  NOT_AVAILABLE,
  opsFeatures,
  type OpsFeatureParts,
  type OpsFeatures,
} from './ops-features.ts';
export { RECEIPT_CSP, serveReceiptHtml } from './serve-receipt.ts';
export { createOpsServer, type OpsServer, type OpsServerOptions } from './ops-server.ts';
export {
  mountOps,
  opsProcessState,
  type OpsMount,
  type OpsProcessState,
  type TenantOpsApi,
} from './mount-ops.ts';
export { AuthThrottle, FAILURES_ALLOWED, FAILURE_WINDOW_SECONDS } from './auth-throttle.ts';
export { DashboardSessions } from './dashboard-sessions.ts';
export { sessionCookieName } from './dashboard-login.ts';
export { TenantsAccess, type TenantTokens } from './tenants-access.ts';
export {
  createTenantsDashboard,
  isTenantsDashboardPath,
  type DashboardTenant,
  type TenantsDashboardOptions,
} from './tenants-dashboard.ts';
export { createTenantsOpsRoutes, type OpsPortTenant } from './tenants-ops-routes.ts';
