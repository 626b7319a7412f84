import { SimError } from '../../engine/sim-error.ts';
import { presentForWire } from '../../engine/present-item.ts';
import { declareKyb, kybNamed } from '../../factories/declare-kyb.ts';
import { visibleIn, type OperationHandlers } from './handler-types.ts';

export const complianceHandlers: OperationHandlers<'putKyb' | 'getKyb' | 'deleteKybTransaction'> = {
  putKyb({ runtime, mode = 'sandbox', params, body }) {
    return { body: presentForWire(declareKyb(runtime.engine, mode, params.name, body)) };
  },

  getKyb({ runtime, mode, params }) {
    const kyb = kybNamed(runtime.engine, params.name);
    if (!kyb || kyb.resource.status === 'deleted' || !visibleIn(mode, kyb)) {
      throw SimError.notFound('Kyb', params.name);
    }
    return { body: presentForWire(kyb) };
  },

  /**
   * A "kyb transaction" is a transfer declared on behalf of an aggregated merchant (its
   * `aggregatedMerchantId` is set). Deleting it detaches the declaration from the transfer.
   */
  deleteKybTransaction({ runtime, mode, params }) {
    const { engine } = runtime;
    const declared = engine.store
      .withReference('transfer', 'reference', params.reference)
      .find((item) => visibleIn(mode, item) && item.resource.aggregatedMerchantId !== '');
    // A list read may hand out a copy of an item at rest in the cold store: take the live one.
    const transfer = declared && engine.store.get('transfer', declared.key);
    if (!transfer) throw SimError.notFound('Kyb transaction', params.reference);
    transfer.resource.aggregatedMerchantId = '';
    engine.touched(transfer);
    return { noBody: true };
  },
};
