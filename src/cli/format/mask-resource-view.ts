import { maskDeep, maskNumberFields, maskNumbersInText } from '../../alerts/mask-number.ts';
import type { ResourceView } from '../../resource-view/index.ts';

const text = (value: string | null): string | null =>
  value === null ? null : maskNumbersInText(value);

/**
 * The view as `paysync show` prints it unless `--reveal`: the one masking policy of alerts and
 * the dashboard (src/alerts/mask-number.ts). A number field (`destination.number`, in the record
 * and in the service's raw JSON) keeps its country and operator prefix and last two digits
 * (`+22177•••••34`); a number echoed in free text (a failure message, a description, a webhook
 * body) is masked as alerts mask it. Ids, references and amounts are left as they are.
 */
export function maskResourceView(view: ResourceView): ResourceView {
  return {
    ...view,
    record: maskRecord(view.record),
    journals: view.journals.map((journal) => ({
      ...journal,
      description: maskNumbersInText(journal.description),
    })),
    discrepancies: view.discrepancies.map((discrepancy) => ({
      ...discrepancy,
      detail: maskDeep(maskNumberFields(discrepancy.detail)),
      rawBody: text(discrepancy.rawBody),
    })),
    inboxEvents: view.inboxEvents.map((event) => ({ ...event, lastError: text(event.lastError) })),
    refunds: view.refunds.map((refund) => ({ ...refund, reason: text(refund.reason) })),
  };
}

/** One mirror record as `show` and `list` print it unless `--reveal` (see above). */
export function maskRecord(record: ResourceView['record']): ResourceView['record'] {
  const common = {
    failureMessage: text(record.failureMessage),
    raw: maskDeep(maskNumberFields(record.raw)),
  };
  switch (record.kind) {
    case 'transfer':
      return {
        ...record,
        ...common,
        destination: maskNumberFields(record.destination),
        description: maskNumbersInText(record.description),
      };
    case 'payment_intent':
      return { ...record, ...common };
    default:
      return { ...record, ...common, reason: text(record.reason) };
  }
}
