/**
 * The resources the simulator keeps, in the shape it serves them. Requests are validated with
 * the contract's schemas (src/upstream/contract); these types describe the simulator's own
 * records, including the fields the interface document leaves "not shown".
 */
export type Mode = 'live' | 'sandbox';
export type AccountType = 'collection' | 'transfer' | 'transfer-irt' | 'cross-border';
export const ACCOUNT_TYPES: readonly AccountType[] = [
  'collection',
  'transfer',
  'transfer-irt',
  'cross-border',
];

export interface FailureCause {
  code: string;
  message: string;
  params: string[];
}

export interface NextAction {
  type: 'otp' | 'redirection' | 'ussd';
  message: string;
  data: {
    url: string;
    method: string;
    headers: Record<string, string>;
    data: Record<string, unknown>;
  };
}

/** One payment attempt on an intent (element shape "not shown" in the interface document). */
export interface PaymentAttempt {
  id: string;
  status: 'action_required' | 'processing' | 'successful' | 'failed';
  amount: number;
  currency: string;
  method: string;
  provider: string;
  msisdn: string;
  createdAt: string;
  updatedAt: string;
  failureCause?: FailureCause;
}

export type PaymentIntentStatus =
  'payment_required' | 'action_required' | 'processing' | 'successful' | 'failed' | 'canceled';

export interface PaymentIntentResource {
  id: string;
  merchantId: string;
  createdAt: string;
  updatedAt: string;
  token: string;
  purchaseReference: string;
  customerReference: string;
  status: PaymentIntentStatus;
  amount: number;
  currency: string;
  payments: PaymentAttempt[];
  mode: Mode;
  nextAction?: NextAction;
  lastPaymentFailure?: FailureCause;
  overrideBusinessName?: string;
  subMerchantId?: string;
}

export interface TransferFee {
  id: string;
  rate: number;
  type: string;
  amount: number;
  currency: string;
  taxes: string[];
  label: string;
}

export type TransferStatus = 'created' | 'pending' | 'successful' | 'failed';

export interface TransferResource {
  id: string;
  merchantId: string;
  createdAt: string;
  updatedAt: string;
  reference: string;
  description: string;
  status: TransferStatus;
  amount: number;
  currency: string;
  mode: Mode;
  destination: {
    type: string;
    country: string;
    number: string;
    provider: string;
    recipientName: string;
  };
  fees: TransferFee[];
  isIrt: boolean;
  providerReference: string;
  gatewayId: string;
  isDelegated: boolean;
  aggregatedMerchantId: string;
  failureCause?: FailureCause;
  origin?: { name: string; country: string };
  overrideBusinessName?: string;
  providerData?: Record<string, unknown>;
  subMerchantId?: string;
  transferInformation?: Record<string, string>;
}

export type RefundStatus = 'created' | 'pending' | 'pending_manual' | 'successful' | 'failed';

export interface RefundResource {
  id: number;
  status: RefundStatus;
  transactionId: string;
  amount: number;
  currency: string;
  reason: string;
  paymentMethod: 'mobile_money' | 'bank_transfer';
  fallbackAllowed: boolean;
  fallbackUsed: boolean;
  metadata: Record<string, unknown>;
  supportTicketId: string;
  createdAt: string;
  updatedAt: string;
}

export type PaymentRefundStatus = 'created' | 'pending' | 'successful' | 'failed';

/** The simulator's payment refund (response fields "not shown" in the interface document). */
export interface PaymentRefundResource {
  id: number;
  paymentIntentId: string;
  status: PaymentRefundStatus;
  amount: number;
  currency: string;
  reason: string;
  mode: Mode;
  createdAt: string;
  updatedAt: string;
  failureCause?: FailureCause;
}

export type PaymentLinkStatus = 'active' | 'expired' | 'closed' | 'completed';

/** The simulator's payment link (fields "not shown" in the interface document). */
export interface PaymentLinkResource {
  id: string;
  merchantId: string;
  type: 'payment' | 'subscription';
  status: PaymentLinkStatus;
  amount: number | null;
  currency: string;
  purchaseReference: string;
  customerReference: string;
  description: string;
  url: string;
  expirationDate: string;
  mode: Mode;
  createdAt: string;
  updatedAt: string;
  /** Payment attempts made through the link: the ids and statuses of their intents. */
  attempts: { paymentIntentId: string; status: PaymentIntentStatus; createdAt: string }[];
}

export type SubmerchantStatus = 'live' | 'sandbox' | 'testing' | 'suspended' | 'archived';

export interface SubmerchantResource {
  id: string;
  name: string;
  description: string;
  address: string;
  zipcode: string;
  city: string;
  phoneNumber: string | null;
  country: string;
  currency: string;
  isActive: boolean;
  status: SubmerchantStatus;
  activity: string;
  preferences: { paymentWalletRestrictMsisdnEnabled: boolean };
  members: unknown[];
  createdAt: string;
  updatedAt: string;
  legalInfo: null;
  policies: null;
  internalCode: string;
  isAggregator: boolean;
  merchantGroup: string;
}

export interface KybResource {
  id: number;
  merchantId: string;
  name: string;
  businessType: string;
  businessRegistrationId: string;
  taxNumber: string;
  directorName: string;
  websiteUrl: string;
  country: string;
  headquarterAddress: string;
  createdAt: string;
  deletedAt: string | null;
  /** Not in the documented record: the simulator's own state, shown as `status` in webhooks. */
  status: 'declared' | 'deleted';
}

/** The simulator's webhook record (fields "not shown" beyond `id`). */
export interface WebhookResource {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string;
  mode: Mode;
  createdAt: string;
  updatedAt: string;
}

export interface ItemResources {
  payment_intent: PaymentIntentResource;
  transfer: TransferResource;
  refund: RefundResource;
  payment_refund: PaymentRefundResource;
  payment_link: PaymentLinkResource;
  submerchant: SubmerchantResource;
  kyb: KybResource;
}

export type ItemKind = keyof ItemResources;
export const ITEM_KINDS: readonly ItemKind[] = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
  'payment_link',
  'submerchant',
  'kyb',
];
