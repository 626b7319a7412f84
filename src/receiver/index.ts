export {
  checkReadiness,
  inboxWriteProblem,
  type Readiness,
  type ReadinessCheck,
} from './check-readiness.ts';
export {
  createReceiverApp,
  type ReceiverConfig,
  type ReceiverDependencies,
} from './receiver-app.ts';
export {
  createReceiverServer,
  type ReceiverServer,
  type ReceiverServerOptions,
} from './receiver-server.ts';
export type {
  SignatureFailureReason,
  SignatureOutcome,
  SignatureVerifier,
} from './signature-outcome.ts';
export { createSignatureVerifier, type SigningConfig } from './verify-signature.ts';
export {
  createTenantsFront,
  type FrontTenant,
  type TenantsFront,
  type TenantsFrontOptions,
  type TenantsReadiness,
  tenantsReadiness,
} from './tenants-front.ts';
