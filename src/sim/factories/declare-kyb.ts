import { SimError } from '../engine/sim-error.ts';
import type { KybResource, Mode } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';

export type KybInput = Partial<
  Pick<
    KybResource,
    | 'name'
    | 'businessType'
    | 'businessRegistrationId'
    | 'taxNumber'
    | 'directorName'
    | 'websiteUrl'
    | 'country'
    | 'headquarterAddress'
  >
>;

const FIELDS = [
  'businessType',
  'businessRegistrationId',
  'taxNumber',
  'directorName',
  'websiteUrl',
  'country',
  'headquarterAddress',
] as const;

/** The current KYB declaration of `name`, if any (deleted ones included). */
export function kybNamed(context: MachineContext, name: string): SimItem<'kyb'> | undefined {
  return context.store.withReference('kyb', 'name', name).at(-1);
}

/**
 * PUT semantics: declares the KYB of `name`, or replaces its fields. A body whose `name`
 * differs from the path: 409 (renaming is not supported).
 */
export function declareKyb(
  context: MachineContext,
  mode: Mode,
  name: string,
  input: KybInput,
): SimItem<'kyb'> {
  if (input.name !== undefined && input.name !== name) {
    throw SimError.conflict(
      `The body names ${input.name} but the path names ${name}; a kyb cannot be renamed`,
    );
  }
  const existing = kybNamed(context, name);
  if (existing) {
    for (const field of FIELDS) {
      const value = input[field];
      if (value !== undefined) existing.resource[field] = value;
    }
    if (existing.resource.status === 'deleted') context.transition(existing, 'declared');
    else context.touched(existing);
    return existing;
  }
  const resource: KybResource = {
    id: context.store.nextNumericId(),
    merchantId: context.merchantId,
    name,
    businessType: '',
    businessRegistrationId: '',
    taxNumber: '',
    directorName: '',
    websiteUrl: '',
    country: '',
    headquarterAddress: '',
    createdAt: context.clock.iso(),
    deletedAt: null,
    status: 'declared',
  };
  for (const field of FIELDS) {
    const value = input[field];
    if (value !== undefined) resource[field] = value;
  }
  return context.create('kyb', mode, resource, { final: 'declared' }, { name });
}
