import { z } from 'zod';
import { FUNDED_AT } from '../engine/money-ledger.ts';
import { ACCOUNT_TYPES, ITEM_KINDS } from '../engine/sim-resources.ts';
import { faultSettingsSchema } from '../faults/fault-settings.ts';

/** Inputs of the control surface (simulator-only; not part of the service's contract). */
const mode = z.enum(['live', 'sandbox']);
const positiveInt = z.number().int().positive();

export const advanceInput = z.strictObject({ ms: z.number().int().min(0) });

export const settleInput = z.strictObject({
  /** @defaultValue the status the sandbox planned for the item */
  status: z.string().min(1).optional(),
});

export const transferInput = z.strictObject({
  amount: positiveInt,
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('XOF'),
  mode: mode.default('sandbox'),
  reference: z.string().min(1).optional(),
  description: z.string().optional(),
  isIrt: z.boolean().default(false),
  aggregatedMerchantId: z.string().optional(),
  destination: z.strictObject({
    type: z.string().default('mobile_money'),
    country: z.string().default('SN'),
    number: z.string().min(1),
    provider: z.string().default('orange_money'),
    recipientName: z.string().default('Sandbox Recipient'),
  }),
});
export type ControlTransferInput = z.input<typeof transferInput>;

export const paymentIntentInput = z.strictObject({
  amount: positiveInt,
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('XOF'),
  mode: mode.default('sandbox'),
  purchaseReference: z.string().min(1).optional(),
  customerReference: z.string().min(1).optional(),
  phoneNumber: z.string().optional(),
  provider: z.string().optional(),
});
export type ControlPaymentIntentInput = z.input<typeof paymentIntentInput>;

export const attemptInput = z.strictObject({
  phoneNumber: z.string().optional(),
  otp: z.string().optional(),
});
export const otpInput = z.strictObject({ otp: z.string() });

export const fundInput = z.strictObject({
  accountType: z.enum(ACCOUNT_TYPES as [string, ...string[]]),
  currency: z.string().regex(/^[A-Z]{3}$/),
  amount: z.number().int(),
  mode: mode.default('sandbox'),
});
export type ControlFundInput = z.input<typeof fundInput>;

export const injectErrorsInput = z.strictObject({
  status: z.literal([401, 403, 404, 409, 429, 500]),
  operationId: z.string().optional(),
  count: positiveInt.default(1),
  codes: z.array(z.string()).optional(),
});
export type ControlInjectErrorsInput = z.input<typeof injectErrorsInput>;

export const seedInput = z.strictObject({
  kind: z.enum(['transfer', 'payment_intent', 'payment_link']),
  count: z.number().int().min(1).max(200_000),
  mode: mode.default('sandbox'),
  /** Spread `createdAt` uniformly over [from, to]. @defaultValue the last 24 h within this month */
  from: z.iso
    .datetime()
    .refine((value) => Date.parse(value) >= Date.parse(FUNDED_AT), {
      message: `from is before ${FUNDED_AT}, when the start-up funding is dated: seed from then on`,
    })
    .optional(),
  to: z.iso.datetime().optional(),
  /** Share of items given a failing sandbox number. @defaultValue 0.1 */
  failureRate: z.number().min(0).max(1).default(0.1),
  /** Drive every item to its final status at once. @defaultValue false */
  settle: z.boolean().default(false),
});
export type ControlSeedInput = z.input<typeof seedInput>;

export const faultsInput = faultSettingsSchema.partial();

export const groundTruthQuery = z.strictObject({
  kind: z.enum(ITEM_KINDS as [string, ...string[]]).optional(),
});
