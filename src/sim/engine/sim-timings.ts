/** How long items wait in each status on the simulator clock. All values in milliseconds. */
export interface SimTimings {
  /** Transfer: created → pending. @defaultValue 2000 */
  transferPendingAfterMs: number;
  /** Transfer: pending → successful/failed. @defaultValue 5000 */
  transferSettleAfterMs: number;
  /** Payment intent: payment_required → processing (or action_required). @defaultValue 1000 */
  paymentProcessingAfterMs: number;
  /** Payment intent: processing → successful/failed. @defaultValue 3000 */
  paymentSettleAfterMs: number;
  /** Payment intent: action_required (OTP) → failed with `otp_expired`. @defaultValue 900000 (15 min) */
  otpExpiresAfterMs: number;
  /** Refund and payment refund: created → pending. @defaultValue 2000 */
  refundPendingAfterMs: number;
  /** Refund and payment refund: pending → successful/failed. @defaultValue 5000 */
  refundSettleAfterMs: number;
  /** The "long pending" sandbox outcome waits this long. @defaultValue 172800000 (48 h) */
  longPendingMs: number;
  /** Payment link lifetime when the body gives no expiration date. @defaultValue 604800000 (7 days) */
  paymentLinkLifetimeMs: number;
}

export const DEFAULT_TIMINGS: Readonly<SimTimings> = Object.freeze({
  transferPendingAfterMs: 2_000,
  transferSettleAfterMs: 5_000,
  paymentProcessingAfterMs: 1_000,
  paymentSettleAfterMs: 3_000,
  otpExpiresAfterMs: 15 * 60_000,
  refundPendingAfterMs: 2_000,
  refundSettleAfterMs: 5_000,
  longPendingMs: 48 * 3_600_000,
  paymentLinkLifetimeMs: 7 * 24 * 3_600_000,
});
