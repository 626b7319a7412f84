import { z } from 'zod';
import { RELAY_EVENT_TYPES, RELAYED_ITEM_KINDS, type RelayedItemKind } from './event-types.ts';

/**
 * The shape of each event type's `data` (docs/relay.md, "Events"), the one source of the
 * builders' types (event-data.ts) and of the published JSON Schema
 * (docs/relay-events.schema.json, `npm run relay:schema`). Field names are camelCase, as in the
 * ops API; money is integer minor units with its currency; times are UTC ISO 8601 with ms.
 */

/**
 * The catalog's types, precisely (event-types.ts builds `RELAY_EVENT_TYPES` with `flatMap`, so
 * its element type is only `string`).
 */
export type ItemEventType = `${RelayedItemKind}.${'succeeded' | 'failed' | 'status_changed'}`;
export type CatalogEventType =
  | ItemEventType
  | 'balance.drift_detected'
  | 'balance.drift_resolved'
  | 'day.verdict'
  | 'alert.raised'
  | 'ping';
const CATALOG = RELAY_EVENT_TYPES as readonly CatalogEventType[];

const utcTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .describe('UTC ISO 8601 with milliseconds');
const minorUnits = z.number().int().describe("An integer amount in the currency's minor units");
const currency = z.string().describe('ISO 4217 code of the amount');

const failure = z
  .object({
    code: z.string().nullable(),
    message: z.string().nullable(),
  })
  .nullable()
  .describe('Why the service says the item failed; null when it has not');

/** What every item event carries, whatever the kind. */
const itemBase = {
  id: z.string().describe("The service's id of the item (`pi_…`, `tr_…`, or a refund's number)"),
  status: z
    .string()
    .describe(
      'The status paysync now holds (monotonic: a terminal status is never left for a non-terminal one)',
    ),
  previousStatus: z
    .string()
    .nullable()
    .describe(
      'The status paysync held before; null when this is the first time paysync sees the item',
    ),
  amount: minorUnits,
  currency,
  failure,
  journalIds: z
    .array(z.number().int())
    .describe(
      'The ledger journals this change posted (a settlement when the item succeeded, a reversal when a settled item failed); empty when it posted none',
    ),
  createdAt: utcTime.nullable().describe('When the service created the item'),
  updatedAt: utcTime.describe('When the service last changed the item (the state paysync took)'),
};

const paymentIntentData = z
  .object({
    object: z.literal('payment_intent'),
    ...itemBase,
    mode: z.string(),
    merchantId: z.string(),
    purchaseReference: z.string().describe("The merchant's reference of the purchase"),
    customerReference: z.string().describe("The merchant's reference of the customer"),
    subMerchantId: z.string().nullable(),
  })
  .strict();

const transferFee = z
  .object({
    id: z.string(),
    amount: minorUnits,
    currency,
    label: z.string().nullable(),
  })
  .strict();

const transferData = z
  .object({
    object: z.literal('transfer'),
    ...itemBase,
    mode: z.string(),
    merchantId: z.string(),
    reference: z.string().describe("The merchant's reference of the transfer"),
    providerReference: z.string().describe("The payment provider's reference"),
    isIrt: z.boolean(),
    fees: z.array(transferFee).describe("The service's fees, each in its own currency"),
  })
  .strict();

const refundData = z
  .object({
    object: z.literal('refund'),
    ...itemBase,
    transferId: z.string().nullable().describe('The refunded transfer (`tr_…`)'),
    reason: z.string().nullable(),
    paymentMethod: z.string().nullable(),
  })
  .strict();

const paymentRefundData = z
  .object({
    object: z.literal('payment_refund'),
    ...itemBase,
    paymentIntentId: z.string().nullable().describe('The refunded payment (`pi_…`), when known'),
    mode: z.string().nullable(),
    reason: z.string().nullable(),
  })
  .strict();

const driftBase = {
  discrepancyId: z.number().int().describe('The `balance_drift` discrepancy (`paysync show`)'),
  account: z.string().describe('The ledger account (`service:main:XOF`)'),
  accountType: z.string().describe("The service's account type"),
  currency,
  asOf: utcTime.describe('The instant of the balance snapshot compared'),
  expected: minorUnits.describe('What the ledger holds for the account at that instant'),
  held: minorUnits.describe('What the service says the account holds'),
  difference: minorUnits.describe('held − expected'),
};

const driftDetectedData = z
  .object({
    ...driftBase,
    unexplained: minorUnits.describe(
      'The part of the difference no open item accounts for (what raised the drift)',
    ),
  })
  .strict();

const driftResolvedData = z
  .object({
    ...driftBase,
    detectedAt: utcTime.describe('The snapshot instant the drift was first seen at'),
  })
  .strict();

const dayVerdictData = z
  .object({
    day: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe('The books day, in `timeZone`'),
    timeZone: z.string(),
    window: z.object({ from: utcTime, to: utcTime }).strict(),
    verdict: z.enum(['RECONCILED', 'RECONCILED_WITH_PENDING', 'BREAKS', 'INCOMPLETE']),
    counts: z
      .array(z.object({ kind: z.string(), status: z.string(), count: z.number().int() }).strict())
      .describe('Items created that day, by kind and status'),
    pending: z.number().int().describe('Items of the day not yet final'),
    breaks: z.number().int().describe('Breaks: what does not reconcile'),
    incomplete: z
      .array(z.string())
      .describe('Why paysync cannot vouch for the day (empty when it can)'),
    computedAt: utcTime,
  })
  .strict();

const alertRaisedData = z
  .object({
    alertId: z.number().int(),
    kind: z.string().describe('The alert kind (docs/alerts.md)'),
    severity: z.enum(['info', 'warning', 'critical']),
    title: z.string().describe('One line; numbers in it are masked'),
    body: z.string().describe('A few lines; numbers in them are masked'),
    subject: z
      .string()
      .nullable()
      .describe('What the alert is about (`tr_…`), when it is one item'),
    raisedAt: utcTime,
  })
  .strict();

const ITEM_DATA = {
  payment_intent: paymentIntentData,
  transfer: transferData,
  refund: refundData,
  payment_refund: paymentRefundData,
} as const;

/** The schema of `data` per emitted type (`ping` carries no item). */
export const RELAY_EVENT_DATA_SCHEMAS = {
  ...(Object.fromEntries(
    RELAYED_ITEM_KINDS.flatMap((kind) =>
      ['succeeded', 'failed', 'status_changed'].map((what) => [`${kind}.${what}`, ITEM_DATA[kind]]),
    ),
  ) as {
    [
      K in RelayedItemKind as `${K}.${'succeeded' | 'failed' | 'status_changed'}`
    ]: (typeof ITEM_DATA)[K];
  }),
  'balance.drift_detected': driftDetectedData,
  'balance.drift_resolved': driftResolvedData,
  'day.verdict': dayVerdictData,
  'alert.raised': alertRaisedData,
  ping: z.object({}).catchall(z.unknown()).describe('Whatever `endpoints test` sends; not an item'),
} as const satisfies Record<CatalogEventType, z.ZodType>;

export type PaymentIntentEventData = z.infer<typeof paymentIntentData>;
export type TransferEventData = z.infer<typeof transferData>;
export type RefundEventData = z.infer<typeof refundData>;
export type PaymentRefundEventData = z.infer<typeof paymentRefundData>;
export type ItemEventData =
  PaymentIntentEventData | TransferEventData | RefundEventData | PaymentRefundEventData;
export type DriftDetectedData = z.infer<typeof driftDetectedData>;
export type DriftResolvedData = z.infer<typeof driftResolvedData>;
export type DayVerdictData = z.infer<typeof dayVerdictData>;
export type AlertRaisedData = z.infer<typeof alertRaisedData>;

const WHEN: Record<CatalogEventType, string> = Object.fromEntries(
  CATALOG.map((type) => {
    const [prefix, what] = type.split('.') as [string, string];
    const item = prefix.replace('_', ' ');
    const text =
      what === 'succeeded'
        ? `A ${item} reached status \`successful\` in paysync's books.`
        : what === 'failed'
          ? `A ${item} reached status \`failed\` in paysync's books.`
          : what === 'status_changed'
            ? `A ${item} reached any other status (first sighting included, with previousStatus null).`
            : '';
    return [type, text];
  }),
) as Record<CatalogEventType, string>;
WHEN['balance.drift_detected'] =
  'A balance snapshot found a service account differing from the ledger by more than open items explain.';
WHEN['balance.drift_resolved'] = 'A later snapshot found the drifting account in agreement again.';
WHEN['day.verdict'] = 'A closed books day was judged for the first time (one event per day).';
WHEN['alert.raised'] = 'paysync raised an alert.';
WHEN.ping = 'Sent by `paysync endpoints test`; never stored as an event.';

/**
 * The published document (draft-07, so any validator reads it): `definitions/<type>` is the
 * whole message of one event type, `definitions/<…>_data` its `data`; the root accepts any.
 */
export function relayEventsSchemaDocument(): string {
  const envelope = (type: CatalogEventType) => ({
    type: 'object',
    description: WHEN[type],
    additionalProperties: false,
    required: ['id', 'type', 'timestamp', 'environment', 'data'],
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_',
        description: 'The event id, also the `webhook-id` header: deduplicate by it',
      },
      type: { const: type },
      timestamp: {
        type: 'string',
        description: 'When paysync committed the change, UTC ISO 8601 with milliseconds',
      },
      environment: { enum: ['live', 'sandbox'] },
      data: { $ref: `#/definitions/${dataName(type)}` },
    },
  });
  const definitions: Record<string, unknown> = {};
  for (const type of CATALOG) {
    const name = dataName(type);
    if (definitions[name]) continue;
    const { $schema: _draft, ...schema } = z.toJSONSchema(RELAY_EVENT_DATA_SCHEMAS[type], {
      target: 'draft-7',
      io: 'output',
    });
    definitions[name] = schema;
  }
  const document = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://paysync.dev/schemas/relay-events.json',
    title: 'paysync relay events',
    description:
      'The body of every event paysync relays to a merchant endpoint (docs/relay.md). Generated from src/relay/event-schemas.ts by `npm run relay:schema`; do not edit by hand.',
    oneOf: CATALOG.map((type) => ({ $ref: `#/definitions/${type}` })),
    definitions: {
      ...Object.fromEntries(CATALOG.map((type) => [type, envelope(type)])),
      ...definitions,
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The definition name of a type's `data`: item kinds share one per kind. */
function dataName(type: CatalogEventType): string {
  const [prefix, what] = type.split('.') as [string, string | undefined];
  if ((RELAYED_ITEM_KINDS as readonly string[]).includes(prefix)) return `${prefix}_data`;
  return `${prefix}${what ? `_${what}` : ''}_data`;
}
