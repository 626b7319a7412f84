import { transferOutcome } from '../sandbox-outcomes.ts';
import type { Mode, TransferFee, TransferResource } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';

export interface TransferInput {
  amount: number;
  currency: string;
  destination: TransferResource['destination'];
  reference?: string | undefined;
  description?: string | undefined;
  isIrt?: boolean | undefined;
  isDelegated?: boolean | undefined;
  aggregatedMerchantId?: string | undefined;
  overrideBusinessName?: string | undefined;
  subMerchantId?: string | undefined;
  origin?: { name: string; country: string } | undefined;
  providerData?: Record<string, unknown> | undefined;
  transferInformation?: Record<string, string> | undefined;
}

/** Fee rates in percent: 1 % for local transfers, 2 % for IRT; rounded up to a whole unit. */
export const TRANSFER_FEE_RATE = { local: 1, irt: 2 } as const;

function feesFor(context: MachineContext, input: TransferInput): TransferFee[] {
  const rate = input.isIrt ? TRANSFER_FEE_RATE.irt : TRANSFER_FEE_RATE.local;
  return [
    {
      id: context.nextId('fee'),
      rate,
      type: 'percentage',
      amount: Math.ceil((input.amount * rate) / 100),
      currency: input.currency,
      taxes: [],
      label: input.isIrt ? 'International transfer fee' : 'Transfer fee',
    },
  ];
}

/** Creates a transfer in `created`; its recipient number chooses the sandbox outcome. */
export function createTransfer(
  context: MachineContext,
  mode: Mode,
  input: TransferInput,
): SimItem<'transfer'> {
  const id = context.nextId('tr');
  const now = context.clock.iso();
  const { timings } = context;
  const reference = input.reference ?? `ref-${id.slice(3, 15)}`;
  const resource: TransferResource = {
    id,
    merchantId: context.merchantId,
    createdAt: now,
    updatedAt: now,
    reference,
    description: input.description ?? '',
    status: 'created',
    amount: input.amount,
    currency: input.currency,
    mode,
    destination: input.destination,
    fees: feesFor(context, input),
    isIrt: input.isIrt ?? false,
    providerReference: context.nextId('prv'),
    gatewayId: `gw_${input.destination.provider}_${input.destination.country.toLowerCase()}`,
    isDelegated: input.isDelegated ?? false,
    aggregatedMerchantId: input.aggregatedMerchantId ?? '',
  };
  if (input.origin) resource.origin = input.origin;
  if (input.overrideBusinessName !== undefined)
    resource.overrideBusinessName = input.overrideBusinessName;
  if (input.subMerchantId !== undefined) resource.subMerchantId = input.subMerchantId;
  if (input.providerData) resource.providerData = input.providerData;
  if (input.transferInformation) resource.transferInformation = input.transferInformation;
  const plan = transferOutcome(
    input.destination.number,
    timings.transferSettleAfterMs,
    timings.longPendingMs,
  );
  return context.create('transfer', mode, resource, plan, { reference });
}
