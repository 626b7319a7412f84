import express, { type Request, type Response, type Router } from 'express';
import {
  eventIdentity,
  InboxUnavailableError,
  splitBatch,
  storedHeaders,
  type AcceptResult,
  type EventIdentity,
  type NewInboxEvent,
} from '../inbox/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { signatureFailures, webhookOutcomes, type TenantMetrics } from '../metrics/index.ts';
import type { SignatureVerifier } from './signature-outcome.ts';
import { sendError } from './webhook-errors.ts';
import {
  inSpan,
  sampledTraceId,
  SpanKind,
  traceLogFields,
  TRACE_ATTRIBUTES,
  type Span,
  type TraceContext,
} from '../tracing/index.ts';

export interface WebhookRouteSettings {
  readonly path: string;
  readonly maxBytes: number;
  readonly verify: SignatureVerifier;
  /** Headers to keep beyond the inbox's list (the configured HMAC headers). */
  readonly extraStoredHeaders: readonly string[];
  /**
   * Stores the events of one request durably, all in one commit, then enqueues them; results
   * in order; throws InboxUnavailableError. `trace`: the commit's span, which the jobs it
   * enqueues continue (docs/observability.md).
   */
  readonly accept: (
    events: readonly NewInboxEvent[],
    trace: { readonly commit: TraceContext },
  ) => Promise<AcceptResult[]>;
  /**
   * Most events one batch may hold; a larger one is refused (413) before anything is stored,
   * so one request never holds the inbox in a transaction for long. @defaultValue 10000
   */
  readonly maxBatchEvents?: number;
  /**
   * Told of every refused signature before the 401 goes out, so the alerts' watcher can see a
   * burst (`signature_failures`); must not throw.
   */
  readonly onRefusedSignature?: () => Promise<void>;
  /** The clock, resolved where the process is assembled: checks signed timestamps, stamps `received_at`. */
  readonly now: Clock;
  readonly logger: Logger;
  /**
   * The tenant whose receiver this is, in a process serving several: named in the request's
   * span. @defaultValue none
   */
  readonly tenant?: string;
  /** The tenant's metrics handle, through which the series counted here are moved. */
  readonly metrics: TenantMetrics;
}

/** `application/json`, or any `application/*+json` (e.g. `application/cloudevents+json`). */
function isJsonMediaType(contentType: string | undefined): boolean {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return media === 'application/json' || /^application\/[\w.-]+\+json$/.test(media);
}

/** Zero bytes, or only JSON whitespace; stops at the first other byte. */
function isBlank(body: Buffer): boolean {
  for (const byte of body) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  return true;
}

// RFC 8259: JSON between systems is UTF-8; a body that is not is not JSON.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(rawBody: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(rawBody)) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * `POST <path>`: the door webhooks come in by. Checks run cheapest and least trusting first
 * (docs/receiver.md): content type (415), size while reading (413), empty (400), signature
 * (401), JSON (400), batch size (413); unsigned bytes never reach the JSON parser and nothing
 * is stored before all of them pass. Then the inbox takes it: 202 when stored, 200 for a
 * duplicate, 503 when the database failed (the sender retries). A batch (see splitBatch) is
 * stored as one row per event, in one commit, and answered once for all of them.
 */
export function webhookRoute(settings: WebhookRouteSettings): Router {
  const maxBatchEvents = settings.maxBatchEvents ?? 10_000;
  const router = express.Router();
  const { metrics } = settings;
  const refuse = (response: Response, status: number, code: string, message: string) => {
    metrics.inc(webhookOutcomes, { outcome: code });
    response.status(status).json({ error: code, message });
  };

  router.post(
    settings.path,
    (request, response, next) => {
      if (isJsonMediaType(request.headers['content-type'])) return next();
      refuse(response, 415, 'unsupported_media_type', 'Content-Type must be application/json');
    },
    // Raw bytes, never a JSON parser's output: the signature covers the bytes as sent, and
    // the inbox keeps them byte for byte. Compressed bodies are refused rather than inflated.
    express.raw({ type: () => true, limit: settings.maxBytes, inflate: false }),
    // The request's span (docs/observability.md): a new trace per webhook, never the sender's
    // (a `traceparent` from outside is not trusted to pick our sampling or our trace ids).
    (request: Request, response: Response) =>
      inSpan(
        `POST ${settings.path}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': 'POST',
            'http.route': settings.path,
            ...(settings.tenant !== undefined
              ? { [TRACE_ATTRIBUTES.tenant]: settings.tenant }
              : {}),
          },
        },
        async (span, traced) => {
          await receive(request, response, span, traced);
          span.setAttribute('http.response.status_code', response.statusCode);
        },
      ),
  );
  const receive = async (
    request: Request,
    response: Response,
    span: Span,
    // The context the request's own spans hang under.
    traced: TraceContext,
  ) => {
    const receivedAt = settings.now();
    // A sampled request's lines carry its trace_id and span_id (docs/observability.md).
    const fields = traceLogFields(span);
    const logger = fields.trace_id ? settings.logger.child(fields) : settings.logger;
    const rawBody: Buffer = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (isBlank(rawBody)) {
      return refuse(response, 400, 'empty_body', 'the body is empty');
    }
    // headersDistinct keeps repeated lines apart (Node's `headers` joins them with ", "), so
    // the verifier can refuse a repeated signature, id or timestamp header.
    const signature = settings.verify(rawBody, request.headersDistinct, receivedAt.getTime());
    span.setAttribute(TRACE_ATTRIBUTES.signatureOutcome, signature.ok ? 'valid' : signature.reason);
    if (!signature.ok) {
      metrics.inc(signatureFailures, { reason: signature.reason });
      await settings.onRefusedSignature?.();
      logger.warn({ reason: signature.reason, detail: signature.message }, 'webhook refused');
      return refuse(response, 401, signature.reason, signature.message);
    }
    const parsed = parseJson(rawBody);
    if (!parsed.ok) return refuse(response, 400, 'invalid_json', 'the body is not valid JSON');

    let batch: ReturnType<typeof splitBatch>;
    try {
      batch = splitBatch(rawBody, parsed.value, signature.signedEventId);
    } catch (error) {
      // Cannot happen for a body that parsed; if it does, keep the body whole (nothing lost).
      logger.error({ err: error }, 'batch not split; storing the body as one event');
      batch = undefined;
    }
    if (batch && batch.length > maxBatchEvents) {
      return refuse(
        response,
        413,
        'batch_too_large',
        `the batch holds ${batch.length} events; send at most ${maxBatchEvents} per request`,
      );
    }
    const headers = storedHeaders(request.headers, settings.extraStoredHeaders);
    const events: (EventIdentity & { rawBody: Buffer })[] = batch ?? [
      { ...eventIdentity(rawBody, parsed.value, signature.signedEventId), rawBody },
    ];
    let results: AcceptResult[];
    try {
      results = await inSpan(
        'paysync.inbox.commit',
        { parent: traced, attributes: { [TRACE_ATTRIBUTES.events]: events.length } },
        async (commit, committing) => {
          const traceId = sampledTraceId(span);
          const stored = await settings.accept(
            events.map((event) => ({
              ...event,
              headers,
              receivedAt,
              ...(traceId ? { traceId } : {}),
            })),
            { commit: committing },
          );
          commit.setAttribute(
            TRACE_ATTRIBUTES.inboxIds,
            stored.map((result) => result.inboxId),
          );
          return stored;
        },
      );
    } catch (error) {
      if (!(error instanceof InboxUnavailableError)) throw error;
      logger.error({ err: error.cause }, 'webhook not stored; answering 503 so the sender retries');
      response.setHeader('Retry-After', '5');
      return refuse(
        response,
        503,
        'inbox_unavailable',
        'the event could not be stored; retry later',
      );
    }
    const duplicates = results.filter((result) => result.duplicate).length;
    const duplicate = duplicates === results.length;
    metrics.inc(webhookOutcomes, { outcome: duplicate ? 'duplicate' : 'accepted' });
    response.status(duplicate ? 200 : 202);
    if (!batch) {
      response.json({ received: true, duplicate, inboxId: results[0]!.inboxId });
      return;
    }
    response.json({
      received: true,
      duplicate,
      batch: true,
      events: results.length,
      duplicates,
      inboxIds: results.map((result) => result.inboxId),
    });
  };
  router.all(settings.path, (_request, response) => {
    response.setHeader('Allow', 'POST');
    sendError(response, 405, 'method_not_allowed', `only POST is accepted on ${settings.path}`);
  });
  return router;
}
