import { z } from 'zod';
import { getBalanceQuery, balanceResponse } from './balance.schema.ts';
import { queryInteger } from './common.schema.ts';
import type { ErrorKind } from './error.schema.ts';
import { kybBody, kybRecord } from './kyb.schema.ts';
import {
  createPaymentLinkBody,
  createSubscriptionLinkBody,
  listPaymentLinksQuery,
  paymentLink,
  paymentLinkWithAttempts,
} from './payment-link.schema.ts';
import {
  delegatedPaymentBody,
  listPaymentIntentsQuery,
  paymentIntent,
} from './payment-intent.schema.ts';
import { getReceiptQuery, receipt } from './receipt.schema.ts';
import {
  bankCodes,
  country,
  listCountriesQuery,
  listProvidersQuery,
  provider,
} from './reference-data.schema.ts';
import {
  paymentRefundRequestBody,
  paymentRefundResponse,
  paymentRefundStatusResponse,
  refund,
  refundCreationResponse,
  refundListResponse,
  refundRequestBody,
} from './refund.schema.ts';
import { createSubmerchantBody, submerchant } from './submerchant.schema.ts';
import { delegatedIrtTransferBody, listTransfersQuery, transfer } from './transfer.schema.ts';
import { createWebhookBody, updateWebhookBody, webhook } from './webhook.schema.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which credential headers an operation lists: `all` = ApiKey + MerchantId + Environment,
 * `merchantId` = MerchantId only, `none` = no header.
 */
export type Credentials = 'all' | 'merchantId' | 'none';

/** Marker for a success response without a body. */
export const NO_BODY = 'none' as const;

export interface OperationDefinition {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Express-free template: `{param}` placeholders. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly credentials: Credentials;
  readonly pathParams?: z.ZodObject;
  readonly query?: z.ZodObject;
  /**
   * The request checks the interface document shows: the client refuses a request that breaks
   * them (nothing is sent), and the OpenAPI document publishes them.
   */
  readonly body?: z.ZodType;
  /**
   * Present where paysync's reading checks more than the document shows (issue 7, C9): the
   * simulator validates these instead, and answers the documented 400 validation body. The
   * client never applies them. See `request-checks.ts` and docs/upstream-client.md.
   */
  readonly simulatorChecks?: {
    readonly body?: z.ZodType;
    readonly query?: z.ZodObject;
  };
  readonly successStatus: number;
  /** False when the document does not show the success status and we chose it. */
  readonly successStatusShown: boolean;
  readonly response: z.ZodType | typeof NO_BODY;
  /** Documented error shapes; `[]` where the document lists none. */
  readonly errors: readonly ErrorKind[];
}

const idParam = z.object({ id: z.string().min(1) });
/** The name of an aggregated merchant's KYB declaration. */
const kybNameParam = z.object({ name: z.string().min(1) });

const GET = 'GET' as const;
const POST = 'POST' as const;

/**
 * A body checked twice: as the document shows it (by the client), and as paysync reads it (by
 * the simulator).
 */
interface CheckedBody<Documented extends z.ZodType, Simulator extends z.ZodType> {
  readonly documented: Documented;
  readonly simulator: Simulator;
}

/** What {@link creation} says of every creation. */
interface Creation<Documented extends z.ZodType, Simulator extends z.ZodType> {
  readonly method: typeof POST;
  readonly credentials: 'all';
  readonly body: Documented;
  readonly simulatorChecks: { readonly body: Simulator };
  readonly successStatus: 201;
  readonly successStatusShown: true;
}

/**
 * An operation that creates a record from a checked body: a POST with every credential, whose
 * 201 the document shows, the client checking the body as the document shows it and the
 * simulator as paysync reads it. `entry` says the rest: its id, path, record and errors.
 */
function creation<
  Documented extends z.ZodType,
  Simulator extends z.ZodType,
  const Entry extends Omit<OperationDefinition, keyof Creation<Documented, Simulator>>,
>(body: CheckedBody<Documented, Simulator>, entry: Entry): Creation<Documented, Simulator> & Entry {
  return {
    method: POST,
    credentials: 'all',
    body: body.documented,
    simulatorChecks: { body: body.simulator },
    successStatus: 201,
    successStatusShown: true,
    ...entry,
  };
}

/** The errors the document lists for a refund, of a transfer or a payment, and its status. */
const REFUND_ERRORS = [
  'validation',
  'wrong_credentials',
  'forbidden',
  'not_found',
  'unsupported_action',
  'throttled',
  'internal',
] as const satisfies readonly ErrorKind[];

/** The errors the document lists for the creation of a payment or subscription link. */
const LINK_CREATION_ERRORS = [
  'validation',
  'wrong_credentials',
  'forbidden',
  'unsupported_action',
  'throttled',
  'internal',
] as const satisfies readonly ErrorKind[];

/**
 * The 30 operations of the payment service. One source of truth for the client's methods and
 * types, the simulator's routing and validation, and the OpenAPI document.
 */
export const operations = {
  // Reference data
  listCountries: {
    operationId: 'listCountries',
    method: GET,
    path: '/data/countries',
    tag: 'reference-data',
    summary: 'List countries',
    credentials: 'none',
    query: listCountriesQuery,
    successStatus: 200,
    successStatusShown: true,
    response: z.array(country),
    errors: ['validation', 'internal'],
  },
  listProviders: {
    operationId: 'listProviders',
    method: GET,
    path: '/data/providers',
    tag: 'reference-data',
    summary: 'List providers',
    credentials: 'none',
    query: listProvidersQuery,
    successStatus: 200,
    successStatusShown: true,
    response: z.array(provider),
    errors: ['validation', 'internal'],
  },
  getBankCodes: {
    operationId: 'getBankCodes',
    method: GET,
    path: '/data/bank-codes',
    tag: 'reference-data',
    summary: 'Bank codes by country',
    credentials: 'none',
    successStatus: 200,
    successStatusShown: true,
    response: bankCodes,
    errors: ['internal'],
  },

  // Webhooks
  createWebhook: creation(createWebhookBody, {
    operationId: 'createWebhook',
    path: '/webhooks',
    tag: 'webhooks',
    summary: 'Register a webhook',
    response: webhook,
    errors: ['wrong_credentials', 'internal'],
  }),
  listWebhooks: {
    operationId: 'listWebhooks',
    method: GET,
    path: '/webhooks',
    tag: 'webhooks',
    summary: 'List webhooks',
    credentials: 'all',
    successStatus: 200,
    successStatusShown: true,
    response: z.array(webhook),
    errors: ['wrong_credentials', 'internal'],
  },
  getWebhook: {
    operationId: 'getWebhook',
    method: GET,
    path: '/webhooks/{id}',
    tag: 'webhooks',
    summary: 'Get a webhook',
    credentials: 'all',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: true,
    response: webhook,
    errors: ['wrong_credentials', 'not_found', 'internal'],
  },
  updateWebhook: {
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/webhooks/{id}',
    tag: 'webhooks',
    summary: 'Update a webhook',
    credentials: 'all',
    pathParams: idParam,
    body: updateWebhookBody.documented,
    simulatorChecks: { body: updateWebhookBody.simulator },
    successStatus: 200,
    successStatusShown: true,
    response: webhook,
    errors: ['wrong_credentials', 'not_found', 'internal'],
  },
  deleteWebhook: {
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    tag: 'webhooks',
    summary: 'Delete a webhook',
    credentials: 'all',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: true,
    response: NO_BODY,
    errors: ['wrong_credentials', 'not_found', 'internal'],
  },

  // Refunds
  createTransferRefund: creation(refundRequestBody, {
    operationId: 'createTransferRefund',
    path: '/refunds/refund',
    tag: 'refunds',
    summary: 'Refund a transfer',
    response: refundCreationResponse,
    errors: REFUND_ERRORS,
  }),
  createRefund: {
    operationId: 'createRefund',
    method: POST,
    path: '/refunds',
    tag: 'refunds',
    summary: 'Create a refund (MerchantId only)',
    credentials: 'merchantId',
    body: refundRequestBody.documented,
    simulatorChecks: { body: refundRequestBody.simulator },
    successStatus: 201,
    successStatusShown: true,
    response: refundCreationResponse,
    errors: [],
  },
  listRefunds: {
    operationId: 'listRefunds',
    method: GET,
    path: '/refunds',
    tag: 'refunds',
    summary: 'List refunds (MerchantId only)',
    credentials: 'merchantId',
    successStatus: 200,
    successStatusShown: true,
    response: refundListResponse,
    errors: [],
  },
  getRefund: {
    operationId: 'getRefund',
    method: GET,
    path: '/refunds/{id}',
    tag: 'refunds',
    summary: 'Get a refund (MerchantId only)',
    credentials: 'merchantId',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: true,
    response: refund,
    errors: [],
  },
  createPaymentRefund: {
    operationId: 'createPaymentRefund',
    method: POST,
    path: '/payments-refund/{id}/refund',
    tag: 'refunds',
    summary: 'Refund a payment',
    credentials: 'all',
    pathParams: idParam,
    body: paymentRefundRequestBody.documented,
    simulatorChecks: { body: paymentRefundRequestBody.simulator },
    successStatus: 202,
    successStatusShown: true,
    response: paymentRefundResponse,
    errors: REFUND_ERRORS,
  },
  getPaymentRefundStatus: {
    operationId: 'getPaymentRefundStatus',
    method: GET,
    path: '/payments-refund/{refundId}/status',
    tag: 'refunds',
    summary: 'Status of a payment refund',
    credentials: 'all',
    pathParams: z.object({ refundId: queryInteger(0) }),
    successStatus: 200,
    successStatusShown: true,
    response: paymentRefundStatusResponse,
    errors: REFUND_ERRORS,
  },

  // Balance
  getBalance: {
    operationId: 'getBalance',
    method: GET,
    path: '/balance',
    tag: 'balance',
    summary: 'Balances of the merchant accounts',
    credentials: 'all',
    query: getBalanceQuery,
    successStatus: 200,
    successStatusShown: true,
    response: balanceResponse,
    errors: ['wrong_credentials', 'throttled', 'internal'],
  },

  // Payment links and subscription links
  createPaymentLink: creation(createPaymentLinkBody, {
    operationId: 'createPaymentLink',
    path: '/payment-links',
    tag: 'payment-links',
    summary: 'Create a payment link',
    response: paymentLink,
    errors: LINK_CREATION_ERRORS,
  }),
  listPaymentLinks: {
    operationId: 'listPaymentLinks',
    method: GET,
    path: '/payment-links',
    tag: 'payment-links',
    summary: 'List payment links with their attempts',
    credentials: 'all',
    query: listPaymentLinksQuery,
    successStatus: 200,
    successStatusShown: true,
    response: z.array(paymentLinkWithAttempts),
    errors: ['validation', 'wrong_credentials', 'forbidden', 'throttled', 'internal'],
  },
  getPaymentLink: {
    operationId: 'getPaymentLink',
    method: GET,
    path: '/payment-links/{id}',
    tag: 'payment-links',
    summary: 'Get a payment link with its attempts',
    credentials: 'all',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: true,
    response: paymentLinkWithAttempts,
    errors: ['validation', 'wrong_credentials', 'forbidden', 'not_found', 'throttled', 'internal'],
  },
  closePaymentLink: {
    operationId: 'closePaymentLink',
    method: 'PATCH',
    path: '/payment-links/{id}/close',
    tag: 'payment-links',
    summary: 'Close a payment link',
    credentials: 'none',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: true,
    response: paymentLink,
    errors: ['validation', 'forbidden', 'not_found', 'throttled'],
  },
  createSubscriptionLink: creation(createSubscriptionLinkBody, {
    operationId: 'createSubscriptionLink',
    path: '/subscription-links',
    tag: 'payment-links',
    summary: 'Create a card-on-file enrollment link',
    response: paymentLink,
    errors: LINK_CREATION_ERRORS,
  }),

  // Payment intents and payments
  createDelegatedPayment: {
    operationId: 'createDelegatedPayment',
    method: POST,
    path: '/delegated/payments',
    tag: 'payments',
    summary: "Collect a payment with the merchant's own provider credentials",
    credentials: 'all',
    body: delegatedPaymentBody.documented,
    simulatorChecks: { body: delegatedPaymentBody.simulator },
    successStatus: 201,
    successStatusShown: false,
    response: paymentIntent,
    errors: ['validation', 'wrong_credentials', 'forbidden', 'throttled', 'internal'],
  },
  getPaymentIntent: {
    operationId: 'getPaymentIntent',
    method: GET,
    path: '/terminal/payments/{id}',
    tag: 'payments',
    summary: 'Get a payment intent',
    credentials: 'all',
    pathParams: idParam,
    successStatus: 200,
    successStatusShown: false,
    response: paymentIntent,
    errors: ['wrong_credentials', 'not_found', 'throttled', 'internal'],
  },
  listPaymentIntents: {
    operationId: 'listPaymentIntents',
    method: GET,
    path: '/payment-intents',
    tag: 'payments',
    summary: 'List payment intents in a date window',
    credentials: 'all',
    query: listPaymentIntentsQuery.documented,
    simulatorChecks: { query: listPaymentIntentsQuery.simulator },
    successStatus: 200,
    successStatusShown: false,
    response: z.array(paymentIntent),
    errors: ['wrong_credentials', 'throttled', 'internal'],
  },

  // Transfers
  listTransfers: {
    operationId: 'listTransfers',
    method: GET,
    path: '/transfers',
    tag: 'transfers',
    summary: 'List transfers in a date window',
    credentials: 'all',
    query: listTransfersQuery.documented,
    simulatorChecks: { query: listTransfersQuery.simulator },
    successStatus: 200,
    successStatusShown: false,
    response: z.array(transfer),
    errors: ['validation', 'wrong_credentials', 'not_found', 'throttled', 'internal'],
  },
  createDelegatedIrtTransfer: {
    operationId: 'createDelegatedIrtTransfer',
    method: POST,
    path: '/delegated/transfers/irt',
    tag: 'transfers',
    summary: "International transfer with the merchant's own provider credentials",
    credentials: 'all',
    body: delegatedIrtTransferBody,
    successStatus: 201,
    successStatusShown: false,
    response: transfer,
    errors: ['validation', 'wrong_provider', 'wrong_credentials', 'throttled', 'internal'],
  },

  // Submerchants
  createSubmerchant: {
    operationId: 'createSubmerchant',
    method: POST,
    path: '/submerchants',
    tag: 'submerchants',
    summary: 'Create a submerchant',
    credentials: 'all',
    body: createSubmerchantBody,
    successStatus: 201,
    successStatusShown: true,
    response: submerchant,
    errors: [],
  },

  // Compliance (KYB)
  putKyb: {
    operationId: 'putKyb',
    method: 'PUT',
    path: '/compliance/kyb/{name}',
    tag: 'compliance',
    summary: 'Declare an aggregated merchant (KYB)',
    credentials: 'all',
    pathParams: kybNameParam,
    body: kybBody,
    successStatus: 200,
    successStatusShown: false,
    response: kybRecord,
    errors: ['wrong_credentials', 'not_found', 'unsupported_action', 'internal'],
  },
  getKyb: {
    operationId: 'getKyb',
    method: GET,
    path: '/compliance/kyb/{name}',
    tag: 'compliance',
    summary: 'Get a KYB declaration',
    credentials: 'all',
    pathParams: kybNameParam,
    successStatus: 200,
    successStatusShown: false,
    response: kybRecord,
    errors: ['wrong_credentials', 'not_found', 'internal'],
  },
  deleteKybTransaction: {
    operationId: 'deleteKybTransaction',
    method: 'DELETE',
    path: '/compliance/transaction/{reference}',
    tag: 'compliance',
    summary: 'Delete a KYB transaction',
    credentials: 'all',
    pathParams: z.object({ reference: z.string().min(1) }),
    successStatus: 200,
    successStatusShown: false,
    response: NO_BODY,
    errors: ['wrong_credentials', 'not_found', 'internal'],
  },

  // Receipts
  getReceiptHtml: {
    operationId: 'getReceiptHtml',
    method: GET,
    path: '/receipts/html/{id}',
    tag: 'receipts',
    summary: 'Receipt of a settled transfer or payment, as HTML',
    credentials: 'none',
    pathParams: idParam,
    query: getReceiptQuery,
    successStatus: 200,
    successStatusShown: false,
    response: receipt,
    errors: ['not_found', 'unsupported_action', 'internal'],
  },
} as const satisfies Record<string, OperationDefinition>;

export type Operations = typeof operations;
export type OperationId = keyof Operations;
export type Operation<Id extends OperationId = OperationId> = Operations[Id];

export const operationIds = Object.keys(operations) as OperationId[];

type SchemaOf<T> = T extends z.ZodType ? T : never;

/** The parsed success body of an operation (`undefined` for no-body operations). */
export type ResponseOf<Id extends OperationId> = Operations[Id]['response'] extends z.ZodType
  ? z.output<SchemaOf<Operations[Id]['response']>>
  : undefined;

/** The request body an operation accepts. */
export type BodyOf<Id extends OperationId> = Operations[Id] extends { body: infer B }
  ? z.input<SchemaOf<B>>
  : never;

/** The typed query an operation accepts (after parsing). */
export type QueryOf<Id extends OperationId> = Operations[Id] extends { query: infer Q }
  ? z.output<SchemaOf<Q>>
  : never;
