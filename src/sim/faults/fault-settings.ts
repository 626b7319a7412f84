import { z } from 'zod';

/** The ways the simulator can break a success response, to exercise the client's contract checks. */
export const CONTRACT_BREAKS = [
  'bad_status',
  'negative_amount',
  'float_amount',
  'missing_id_prefix',
  'missing_field',
] as const;
export type ContractBreak = (typeof CONTRACT_BREAKS)[number];

export const LIST_ORDERS = [
  'createdAt-desc',
  'createdAt-asc',
  'updatedAt-desc',
  'shuffled',
] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

/**
 * Shapes the simulator can answer `GET /balance` in. The document does not show the response,
 * so a client must cope with more than the simulator's default `list`:
 * - `list`: `{ date, balances: [{ accountType, currency, amount }] }`;
 * - `keyed`: `{ asOf, balances: { transfer: { XOF: 100 } } }`;
 * - `data`: `{ data: [{ account_type, currency_code, available: { amount } }], timestamp }`;
 * - `opaque`: `{ result: 'ok', total: '…' }`, a shape no reader should claim to understand.
 */
export const BALANCE_SHAPES = ['list', 'keyed', 'data', 'opaque'] as const;
export type BalanceShape = (typeof BALANCE_SHAPES)[number];

const rate = z.number().min(0).max(1);
const ms = z.number().int().min(0).max(600_000);

/**
 * Fault rates, all off by default. Request faults hit API operations only (never `/__sim`),
 * and only the operations in `operations` when that list is not empty.
 */
export const faultSettingsSchema = z.strictObject({
  /** Share of requests answered 500 (documented internal-error body). @defaultValue 0 */
  errorRate: rate.default(0),
  /** Share of requests answered 429 (documented throttling body), on top of `rps`. @defaultValue 0 */
  throttleRate: rate.default(0),
  /** Delay added before every answer. @defaultValue 0 */
  latencyMs: ms.default(0),
  /** Extra random delay, uniform in [0, latencyJitterMs]. @defaultValue 0 */
  latencyJitterMs: ms.default(0),
  /** Share of success responses broken as `contractBreak` says. @defaultValue 0 */
  contractBreakRate: rate.default(0),
  /** How a broken response is broken. @defaultValue `negative_amount` */
  contractBreak: z.enum(CONTRACT_BREAKS).default('negative_amount'),
  /**
   * Order of list responses (payment intents, transfers, refunds, links). `shuffled` is a new
   * random order on every request, to check that a client does not rely on the order.
   * @defaultValue `createdAt-desc`
   */
  listOrder: z.enum(LIST_ORDERS).default('createdAt-desc'),
  /** How `GET /balance` is shaped (see {@link BALANCE_SHAPES}). @defaultValue `list` */
  balanceShape: z.enum(BALANCE_SHAPES).default('list'),
  /** operationIds the request faults apply to; empty = every operation. @defaultValue [] */
  operations: z.array(z.string()).default([]),
  /** Share of webhook events never sent (recorded as `dropped`). @defaultValue 0 */
  webhookDropRate: rate.default(0),
  /** Share of webhook events sent twice with the same `webhook-id`. @defaultValue 0 */
  webhookDuplicateRate: rate.default(0),
  /** Share of webhook events held back so that later events overtake them. @defaultValue 0 */
  webhookReorderRate: rate.default(0),
  /** How long a reordered event is held back. @defaultValue 250 */
  webhookReorderDelayMs: ms.default(250),
});

export type FaultSettings = z.output<typeof faultSettingsSchema>;
export type FaultSettingsInput = z.input<typeof faultSettingsSchema>;

export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze(faultSettingsSchema.parse({}));
