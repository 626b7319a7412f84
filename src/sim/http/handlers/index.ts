import type { OperationId } from '../../../upstream/contract/index.ts';
import { balanceHandlers } from './balance.handlers.ts';
import { complianceHandlers } from './compliance.handlers.ts';
import type { OperationHandlers } from './handler-types.ts';
import { paymentLinkHandlers } from './payment-links.handlers.ts';
import { paymentHandlers } from './payments.handlers.ts';
import { receiptHandlers } from './receipts.handlers.ts';
import { referenceDataHandlers } from './reference-data.handlers.ts';
import { refundHandlers } from './refunds.handlers.ts';
import { submerchantHandlers } from './submerchants.handlers.ts';
import { transferHandlers } from './transfers.handlers.ts';
import { webhookHandlers } from './webhooks.handlers.ts';

/** One handler per operationId; the type makes a missing operation a compile error. */
export const OPERATION_HANDLERS: OperationHandlers<OperationId> = {
  ...referenceDataHandlers,
  ...webhookHandlers,
  ...refundHandlers,
  ...balanceHandlers,
  ...paymentLinkHandlers,
  ...paymentHandlers,
  ...transferHandlers,
  ...submerchantHandlers,
  ...complianceHandlers,
  ...receiptHandlers,
};
