import type { Mode } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';
import { MERCHANT_PROFILE } from '../reference-data.ts';

export interface SubmerchantInput {
  name: string;
  description?: string | undefined;
  address?: string | undefined;
  zipcode?: string | undefined;
  city?: string | undefined;
  phoneNumber?: string | undefined;
}

function uuidFrom(context: MachineContext): string {
  const hex = [...context.nextId('x').slice(2)]
    .map((c) => (c.charCodeAt(0) % 16).toString(16))
    .join('');
  const digits = (hex + hex).slice(0, 32);
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(13, 16)}-a${digits.slice(17, 20)}-${digits.slice(20, 32)}`;
}

/** Creates a submerchant in the status of the request's mode; country and currency are the merchant's. */
export function createSubmerchant(
  context: MachineContext,
  mode: Mode,
  input: SubmerchantInput,
): SimItem<'submerchant'> {
  const now = context.clock.iso();
  const id = uuidFrom(context);
  return context.create(
    'submerchant',
    mode,
    {
      id,
      name: input.name,
      description: input.description ?? '',
      address: input.address ?? '',
      zipcode: input.zipcode ?? '',
      city: input.city ?? '',
      phoneNumber: input.phoneNumber ?? null,
      country: MERCHANT_PROFILE.country,
      currency: MERCHANT_PROFILE.currency,
      isActive: true,
      status: mode,
      activity: 'new',
      preferences: { paymentWalletRestrictMsisdnEnabled: false },
      members: [],
      createdAt: now,
      updatedAt: now,
      legalInfo: null,
      policies: null,
      internalCode: `SM-${id.slice(0, 8).toUpperCase()}`,
      isAggregator: false,
      merchantGroup: context.merchantId,
    },
    { final: mode },
    { name: input.name },
  );
}
