import { bulkhead, handleWhen, retry, type BulkheadPolicy, type RetryPolicy } from 'cockatiel';
import type { z } from 'zod';
import {
  resolveClientOptions,
  type ResolvedClientOptions,
  type UpstreamClientOptions,
} from './client-options.ts';
import {
  NO_BODY,
  operations,
  type BodyOf,
  type Credentials,
  type OperationDefinition,
  type OperationId,
  type QueryOf,
  type ResponseOf,
} from './contract/index.ts';
import {
  ContractError,
  InvalidRequestError,
  NetworkError,
  ThrottledError,
  TimeoutError,
  UpstreamError,
  WrongCredentialsError,
  errorFromResponse,
  formatPath,
  type ContractIssue,
} from './errors.ts';
import {
  AttemptTimedOut,
  createFetchTransport,
  createHttpTransport,
  type Transport,
} from './http-transport.ts';
import { reasonOf } from '../error-reason.ts';
import { serializeQuery, withListDefaults, type QueryValue } from './query-string.ts';
import {
  createRequestRateLimiter,
  type AdaptiveRateLimiter,
  type BudgetLane,
} from './rate-limit.ts';
import { RetryAfterBackoff } from './retry-backoff.ts';
import {
  inSpan,
  SpanKind,
  TRACE_ATTRIBUTES,
  type Span,
  type TraceContext,
} from '../tracing/index.ts';
import {
  upstreamRequestDuration,
  upstreamRequestsTotal,
  upstreamRetriesTotal,
  upstreamThrottlesTotal,
} from './upstream-metrics.ts';

type DateKeys =
  | 'from'
  | 'to'
  | 'date'
  | 'fromCreatedAt'
  | 'toCreatedAt'
  | 'fromExpirationDate'
  | 'toExpirationDate';

/** The query a method accepts: the contract's typed query, with `Date` allowed for datetimes. */
export type QueryInput<Id extends OperationId> = {
  [K in keyof QueryOf<Id>]?: K extends DateKeys ? Date | string : QueryOf<Id>[K];
};

export interface RequestOptions {
  /** Cancels the call, including its waits for the rate limit and back-off. */
  signal?: AbortSignal;
  /** Which lane of the budget the call waits in. @defaultValue `books` */
  lane?: BudgetLane;
  /**
   * The span the call's own span is a child of. @defaultValue the client's, set by
   * {@link UpstreamClient.within}; else the call starts a trace of its own
   */
  trace?: TraceContext | undefined;
}

export interface CallInput extends RequestOptions {
  path?: Readonly<Record<string, string | number | undefined>>;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
}

/** Counters of one client, for tests and `doctor`; the same numbers go to Prometheus. */
export interface UpstreamClientStats {
  /** HTTP attempts sent. */
  requests: number;
  retries: number;
  retriesByReason: Record<string, number>;
  /** 429 answers received. */
  throttled: number;
  /** Times a credential-less operation was answered 401 and re-sent with all credentials. */
  credentialFallbacks: number;
}

const LIST_WINDOW_OPERATIONS: ReadonlySet<OperationId> = new Set([
  'listPaymentIntents',
  'listTransfers',
]);

/**
 * Typed client of the payment service: one method per operation of the interface document.
 * Reads are retried on 429/5xx/timeout/network errors with exponential back-off and jitter;
 * writes are retried only on 429 (the service did not process them). Every attempt passes the
 * shared rate limit and the concurrency cap. Every answer is checked against the contract.
 */
export class UpstreamClient {
  readonly options: ResolvedClientOptions;
  private readonly limiter: AdaptiveRateLimiter;
  private readonly concurrency: BulkheadPolicy;
  private readonly transport: Transport;
  private readonly readRetry: RetryPolicy;
  private readonly writeRetry: RetryPolicy;
  /** Operations that turned out to need all credentials although the document lists fewer. */
  private readonly needsAllCredentials = new Set<OperationId>();
  private readonly counters: UpstreamClientStats = {
    requests: 0,
    retries: 0,
    retriesByReason: {},
    throttled: 0,
    credentialFallbacks: 0,
  };

  constructor(options: UpstreamClientOptions) {
    this.options = resolveClientOptions(options);
    this.limiter = createRequestRateLimiter({
      rps: this.options.rps,
      redis: this.options.redis,
      key: this.options.rateLimitKey,
      merchantId: this.options.merchantId,
      environment: this.options.environment,
      receiptsShare: this.options.receiptsShare,
      logger: this.options.logger,
      metrics: this.options.metrics,
    });
    this.concurrency = bulkhead(this.options.concurrency, Number.MAX_SAFE_INTEGER);
    this.readRetry = this.retryPolicy((error) => error instanceof UpstreamError && error.retryable);
    this.writeRetry = this.retryPolicy((error) => error instanceof ThrottledError);
    this.transport = this.options.fetch
      ? createFetchTransport(this.options.fetch)
      : createHttpTransport({
          maxSockets: this.options.concurrency,
          idleSocketTimeoutMs: this.options.idleSocketTimeoutMs,
          ca: this.options.ca,
        });
  }

  /**
   * Closes the pooled connections. Optional: idle sockets never keep the process alive. A call
   * after it still works, on a new connection.
   */
  close(): void {
    this.transport.close();
  }

  /** The budget as this process sees it: its current rate and what waits in each lane. */
  budget(): { rate: number; ceiling: number; waiting: Record<BudgetLane, number> } {
    return {
      rate: this.limiter.currentRate(),
      ceiling: this.options.rps,
      waiting: this.limiter.waiting(),
    };
  }

  /**
   * This client, its calls' spans under `trace` (docs/observability.md): what a traced piece of
   * work hands on instead of an "active" span. Shares everything else (budget, sockets, counters)
   * with the client it came from.
   */
  within(trace: TraceContext): UpstreamClient {
    const base = this.traceBase ?? this;
    const scoped = Object.create(base) as UpstreamClient;
    scoped.traceBase = base;
    scoped.traceParent = trace;
    return scoped;
  }

  /** The client {@link within} scoped, and the context it scoped this one to. */
  private traceBase: UpstreamClient | undefined;
  private traceParent: TraceContext | undefined;

  stats(): UpstreamClientStats {
    return { ...this.counters, retriesByReason: { ...this.counters.retriesByReason } };
  }

  // Reference data

  listCountries(query: QueryInput<'listCountries'> = {}, options?: RequestOptions) {
    return this.call('listCountries', { query, ...options });
  }

  listProviders(query: QueryInput<'listProviders'> = {}, options?: RequestOptions) {
    return this.call('listProviders', { query, ...options });
  }

  getBankCodes(options?: RequestOptions) {
    return this.call('getBankCodes', { ...options });
  }

  // Webhooks

  createWebhook(body: BodyOf<'createWebhook'>, options?: RequestOptions) {
    return this.call('createWebhook', { body, ...options });
  }

  listWebhooks(options?: RequestOptions) {
    return this.call('listWebhooks', { ...options });
  }

  getWebhook(id: string, options?: RequestOptions) {
    return this.call('getWebhook', { path: { id }, ...options });
  }

  updateWebhook(id: string, body: BodyOf<'updateWebhook'>, options?: RequestOptions) {
    return this.call('updateWebhook', { path: { id }, body, ...options });
  }

  async deleteWebhook(id: string, options?: RequestOptions): Promise<void> {
    await this.call('deleteWebhook', { path: { id }, ...options });
  }

  // Refunds

  createTransferRefund(body: BodyOf<'createTransferRefund'>, options?: RequestOptions) {
    return this.call('createTransferRefund', { body, ...options });
  }

  createRefund(body: BodyOf<'createRefund'>, options?: RequestOptions) {
    return this.call('createRefund', { body, ...options });
  }

  listRefunds(options?: RequestOptions) {
    return this.call('listRefunds', { ...options });
  }

  getRefund(id: string | number, options?: RequestOptions) {
    return this.call('getRefund', { path: { id }, ...options });
  }

  createPaymentRefund(
    paymentId: string,
    body: BodyOf<'createPaymentRefund'> = {},
    options?: RequestOptions,
  ) {
    return this.call('createPaymentRefund', { path: { id: paymentId }, body, ...options });
  }

  getPaymentRefundStatus(refundId: number, options?: RequestOptions) {
    return this.call('getPaymentRefundStatus', { path: { refundId }, ...options });
  }

  // Balance

  getBalance(query: QueryInput<'getBalance'> = {}, options?: RequestOptions) {
    return this.call('getBalance', { query, ...options });
  }

  // Payment links and subscription links

  createPaymentLink(body: BodyOf<'createPaymentLink'>, options?: RequestOptions) {
    return this.call('createPaymentLink', { body, ...options });
  }

  listPaymentLinks(query: QueryInput<'listPaymentLinks'> = {}, options?: RequestOptions) {
    return this.call('listPaymentLinks', { query, ...options });
  }

  getPaymentLink(id: string, options?: RequestOptions) {
    return this.call('getPaymentLink', { path: { id }, ...options });
  }

  closePaymentLink(id: string, options?: RequestOptions) {
    return this.call('closePaymentLink', { path: { id }, ...options });
  }

  createSubscriptionLink(body: BodyOf<'createSubscriptionLink'>, options?: RequestOptions) {
    return this.call('createSubscriptionLink', { body, ...options });
  }

  // Payment intents and payments

  createDelegatedPayment(body: BodyOf<'createDelegatedPayment'>, options?: RequestOptions) {
    return this.call('createDelegatedPayment', { body, ...options });
  }

  getPaymentIntent(id: string, options?: RequestOptions) {
    return this.call('getPaymentIntent', { path: { id }, ...options });
  }

  /** One page. The documented defaults of `from`, `to`, `page`, `perPage` are sent explicitly. */
  listPaymentIntents(query: QueryInput<'listPaymentIntents'> = {}, options?: RequestOptions) {
    return this.call('listPaymentIntents', { query, ...options });
  }

  // Transfers

  /** One page. The documented defaults of `from`, `to`, `page`, `perPage` are sent explicitly. */
  listTransfers(query: QueryInput<'listTransfers'> = {}, options?: RequestOptions) {
    return this.call('listTransfers', { query, ...options });
  }

  createDelegatedIrtTransfer(body: BodyOf<'createDelegatedIrtTransfer'>, options?: RequestOptions) {
    return this.call('createDelegatedIrtTransfer', { body, ...options });
  }

  // Submerchants

  createSubmerchant(body: BodyOf<'createSubmerchant'>, options?: RequestOptions) {
    return this.call('createSubmerchant', { body, ...options });
  }

  // Compliance (KYB)

  putKyb(name: string, body: BodyOf<'putKyb'>, options?: RequestOptions) {
    return this.call('putKyb', { path: { name }, body, ...options });
  }

  getKyb(name: string, options?: RequestOptions) {
    return this.call('getKyb', { path: { name }, ...options });
  }

  async deleteKybTransaction(reference: string, options?: RequestOptions): Promise<void> {
    await this.call('deleteKybTransaction', { path: { reference }, ...options });
  }

  // Receipts

  /** `isReceiptId`: true when `id` is a receipt id, false for a transfer or payment id. */
  getReceiptHtml(id: string, query: QueryInput<'getReceiptHtml'> = {}, options?: RequestOptions) {
    return this.call('getReceiptHtml', { path: { id }, query, ...options });
  }

  /** Any operation by id; the typed methods above are thin wrappers of this. */
  async call<Id extends OperationId>(
    operationId: Id,
    input: CallInput = {},
  ): Promise<ResponseOf<Id>> {
    const operation: OperationDefinition = operations[operationId];
    const url = this.buildUrl(operationId, operation, input);
    const bodyText = this.encodeBody(operationId, operation, input.body);
    const policy = operation.method === 'GET' ? this.readRetry : this.writeRetry;
    // One span per call, its tries and waits inside (docs/observability.md): no URL, no body.
    return inSpan(
      `upstream ${operationId}`,
      {
        kind: SpanKind.CLIENT,
        parent: input.trace ?? this.traceParent,
        attributes: {
          'http.request.method': operation.method,
          [TRACE_ATTRIBUTES.operation]: operationId,
        },
      },
      (span) => this.execute(policy, operationId, operation, url, bodyText, input, span),
    ) as Promise<ResponseOf<Id>>;
  }

  private async execute(
    policy: RetryPolicy,
    operationId: OperationId,
    operation: OperationDefinition,
    url: string,
    bodyText: string | undefined,
    input: CallInput,
    span: Span,
  ): Promise<unknown> {
    // The budget first, then a connection: a request waiting for the budget holds no slot of
    // the concurrency cap, so receipts waiting behind the books never block the books' sockets.
    const result = await policy.execute(async () => {
      await this.limiter.acquire(input.lane ?? 'books', input.signal);
      return this.concurrency.execute(
        () => this.send(operationId, operation, url, bodyText, input.signal, span),
        input.signal,
      );
    }, input.signal);
    return result;
  }

  /**
   * Built once per client: reads retry every retryable error, writes only a 429. The policies
   * keep no state between calls (the back-off starts afresh per execution); the operation of a
   * retry comes from its error.
   */
  private retryPolicy(retryOn: (error: Error) => boolean): RetryPolicy {
    const policy = retry(handleWhen(retryOn), {
      maxAttempts: this.options.maxRetries,
      backoff: RetryAfterBackoff.create(
        this.options.retryInitialDelayMs,
        this.options.retryMaxDelayMs,
      ),
    });
    policy.onRetry((event) => {
      const error =
        'error' in event && event.error instanceof UpstreamError ? event.error : undefined;
      const reason = error?.code ?? 'unknown';
      const operation = error?.operationId ?? 'unknown';
      this.counters.retries += 1;
      this.counters.retriesByReason[reason] = (this.counters.retriesByReason[reason] ?? 0) + 1;
      this.options.metrics.inc(upstreamRetriesTotal, { operation, reason });
      this.options.logger?.debug(
        { operation, attempt: event.attempt, reason, delayMs: Math.round(event.delay) },
        'retrying request to the payment service',
      );
    });
    return policy;
  }

  private buildUrl(
    operationId: OperationId,
    operation: OperationDefinition,
    input: CallInput,
  ): string {
    const issues: ContractIssue[] = [];
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = input.path?.[name];
      if (value === undefined || value === '') {
        issues.push({ path: name, message: 'is required' });
        return '';
      }
      return encodeURIComponent(String(value));
    });
    let query = input.query ?? {};
    if (LIST_WINDOW_OPERATIONS.has(operationId))
      query = withListDefaults(query, this.options.now());
    const { search, issues: queryIssues } = serializeQuery(query);
    issues.push(...queryIssues);
    if (issues.length === 0 && this.options.validateRequests && operation.query) {
      issues.push(...zodIssues(operation.query.safeParse(searchToObject(search))));
    }
    if (issues.length > 0) throw new InvalidRequestError(issues, { operationId });
    const queryString = search.toString();
    return `${this.options.baseUrl}${path}${queryString ? `?${queryString}` : ''}`;
  }

  private encodeBody(
    operationId: OperationId,
    operation: OperationDefinition,
    body: unknown,
  ): string | undefined {
    if (!operation.body) return undefined;
    if (this.options.validateRequests) {
      const issues = zodIssues(operation.body.safeParse(body ?? {}));
      if (issues.length > 0) throw new InvalidRequestError(issues, { operationId });
    }
    return JSON.stringify(body ?? {});
  }

  private credentialsFor(operationId: OperationId, operation: OperationDefinition): Credentials {
    return this.needsAllCredentials.has(operationId) ? 'all' : operation.credentials;
  }

  private headers(credentials: Credentials, hasBody: boolean): Record<string, string> {
    // fetch used to send `user-agent: node`; a request without one is suspect to some gateways.
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'paysync' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (credentials === 'all') {
      headers.ApiKey = this.options.apiKey;
      headers.MerchantId = this.options.merchantId;
      headers.Environment = this.options.environment;
    } else if (credentials === 'merchantId') {
      headers.MerchantId = this.options.merchantId;
    }
    return headers;
  }

  /**
   * One attempt, plus at most one immediate re-send with all credentials when an operation the
   * document lists as credential-less is answered 401 (a 401 means nothing was processed).
   */
  private async send(
    operationId: OperationId,
    operation: OperationDefinition,
    url: string,
    bodyText: string | undefined,
    signal: AbortSignal | undefined,
    span: Span,
  ): Promise<unknown> {
    const credentials = this.credentialsFor(operationId, operation);
    try {
      return await this.sendOnce(operationId, operation, url, credentials, bodyText, signal, span);
    } catch (error) {
      if (!(error instanceof WrongCredentialsError) || credentials === 'all') throw error;
      this.needsAllCredentials.add(operationId);
      this.counters.credentialFallbacks += 1;
      this.options.logger?.warn(
        { operation: operationId, listed: operation.credentials },
        'the payment service demanded credentials on an operation that lists none; sending all credentials for it from now on',
      );
      return this.sendOnce(operationId, operation, url, 'all', bodyText, signal, span);
    }
  }

  private async sendOnce(
    operationId: OperationId,
    operation: OperationDefinition,
    url: string,
    credentials: Credentials,
    bodyText: string | undefined,
    signal: AbortSignal | undefined,
    span: Span,
  ): Promise<unknown> {
    this.counters.requests += 1;
    const stopTimer = this.options.metrics.startTimer(upstreamRequestDuration, {
      operation: operationId,
    });
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      ({ status, text, retryAfter } = await this.transport.send({
        method: operation.method,
        url,
        headers: this.headers(credentials, bodyText !== undefined),
        body: bodyText,
        timeoutMs: this.options.timeoutMs,
        signal,
      }));
    } catch (error) {
      const failure = this.transportError(operationId, error, signal);
      this.options.metrics.inc(upstreamRequestsTotal, {
        operation: operationId,
        outcome: failure instanceof UpstreamError ? failure.code : 'aborted',
      });
      throw failure;
    } finally {
      stopTimer();
    }
    noteAttempt(span, status);
    const body = parseBody(text);
    if (status < 200 || status >= 300) {
      const error = errorFromResponse({
        operationId,
        status,
        body: body.value,
        retryAfter,
        receivedAtMs: this.options.now().getTime(),
      });
      if (error instanceof ThrottledError) {
        this.counters.throttled += 1;
        this.limiter.throttled(error.retryAfterMs);
        this.options.metrics.inc(upstreamThrottlesTotal, { operation: operationId });
      }
      this.options.metrics.inc(upstreamRequestsTotal, {
        operation: operationId,
        outcome: error.code,
      });
      throw error;
    }
    this.options.metrics.inc(upstreamRequestsTotal, { operation: operationId, outcome: 'ok' });
    if (operation.response === NO_BODY) return undefined;
    if (!body.json) {
      throw new ContractError([{ path: '(body)', message: 'is not JSON' }], {
        operationId,
        status,
        body: body.value,
      });
    }
    const parsed = (operation.response as z.ZodType).safeParse(body.value);
    if (!parsed.success) {
      throw new ContractError(zodIssues(parsed), { operationId, status, body: body.value });
    }
    return parsed.data;
  }

  private transportError(
    operationId: OperationId,
    error: unknown,
    signal: AbortSignal | undefined,
  ): Error {
    if (signal?.aborted)
      return signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (error instanceof AttemptTimedOut)
      return new TimeoutError(this.options.timeoutMs, { operationId, cause: error });
    return new NetworkError(networkDetail(error), { operationId, cause: error });
  }
}

/** Counts a try and its status (and a 429 apart) on the call's span. */
function noteAttempt(span: Span, status: number): void {
  if (!span.isRecording()) return;
  const tried = attemptsOf.get(span) ?? { attempts: 0, throttled: 0 };
  tried.attempts += 1;
  if (status === 429) tried.throttled += 1;
  attemptsOf.set(span, tried);
  span.setAttributes({
    'http.response.status_code': status,
    [TRACE_ATTRIBUTES.attempt]: tried.attempts,
    [TRACE_ATTRIBUTES.rateLimited]: tried.throttled,
  });
}

const attemptsOf = new WeakMap<object, { attempts: number; throttled: number }>();

/** Creates a client; see {@link UpstreamClientOptions} for the defaults. */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  return new UpstreamClient(options);
}

/** The error code (`ECONNREFUSED`, `ECONNRESET`, a TLS code), from node:http or from fetch's `cause`. */
function networkDetail(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  const causeCode = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  if (typeof causeCode === 'string') return causeCode;
  return reasonOf(error);
}

function parseBody(text: string): { json: boolean; value: unknown } {
  if (text === '') return { json: false, value: undefined };
  try {
    return { json: true, value: JSON.parse(text) as unknown };
  } catch {
    return { json: false, value: text };
  }
}

function zodIssues(result: z.ZodSafeParseResult<unknown>): ContractIssue[] {
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
  }));
}

function searchToObject(search: URLSearchParams): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    object[key] = values.length === 1 ? values[0]! : values;
  }
  return object;
}
