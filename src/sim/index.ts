/**
 * The sandbox simulator of the payment service. Tests, benchmarks and `paysync sim` use it;
 * production code never imports it.
 */
export { startSimulator, type RunningSimulator } from './start-simulator.ts';
export {
  generateApiKey,
  generateMerchantId,
  generateWebhookSecret,
  type InitialBalance,
  type SimulatorOptions,
} from './sim-options.ts';
export type { SimControl, SimItemView, GroundTruth } from './control/sim-control.ts';
export { CONTROL_PREFIX } from './http/control-router.ts';
export type { DeliveryAttempt } from './webhooks/webhook-dispatcher.ts';
export type { WebhookEvent } from './webhooks/webhook-event.ts';
export {
  CONTRACT_BREAKS,
  type ContractBreak,
  type FaultSettings,
} from './faults/fault-settings.ts';
export { DEFAULT_TIMINGS, type SimTimings } from './engine/sim-timings.ts';
export type { Balance, MoneyMovement } from './engine/money-ledger.ts';
export { PAYMENT_OUTCOMES, SANDBOX_OTP, TRANSFER_OUTCOMES } from './sandbox-outcomes.ts';
