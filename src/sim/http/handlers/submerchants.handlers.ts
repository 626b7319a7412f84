import { presentForWire } from '../../engine/present-item.ts';
import { createSubmerchant } from '../../factories/create-submerchant.ts';
import type { OperationHandlers } from './handler-types.ts';

export const submerchantHandlers: OperationHandlers<'createSubmerchant'> = {
  createSubmerchant({ runtime, mode = 'sandbox', body }) {
    return { body: presentForWire(createSubmerchant(runtime.engine, mode, body)) };
  },
};
