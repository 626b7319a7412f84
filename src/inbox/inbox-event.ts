import type { InboxStatus } from './inbox.table.ts';
import type { ResourceHandle } from './inbox-progress.repository.ts';

/** What the receiver hands the inbox: one verified webhook, exactly as it arrived. */
export interface NewInboxEvent {
  /** See {@link eventIdentity}: `event:<id>` or `sha256:<hex of the raw body>`. */
  readonly dedupeKey: string;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
  /** The request body byte for byte; never re-serialised. */
  readonly rawBody: Buffer;
  /** Only the headers {@link storedHeaders} keeps. */
  readonly headers: Readonly<Record<string, string>>;
  /** When the receiver took the request, by the process's clock. */
  readonly receivedAt: Date;
  /**
   * The resource the receiver's classifier named (classify at intake): stored on the row in
   * the same commit, so the row needs no ingest job. Absent when the receiver did not classify.
   */
  readonly resource?: ResourceHandle;
  /** The classifier found nothing paysync keeps books for (submerchant, KYB): stored processed. */
  readonly ignored?: boolean;
  /** The sampled trace of the request that brought it (docs/observability.md), if any. */
  readonly traceId?: string;
}

/** A row the intake committed for the first time, with the event it holds. */
export interface StoredInboxEvent {
  readonly inboxId: number;
  readonly event: NewInboxEvent;
}

/** One inbox row, as the rest of paysync sees it. Times are UTC ISO 8601 with milliseconds. */
export interface InboxEvent {
  readonly id: number;
  readonly dedupeKey: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
  /** Empty once retention pruned it: see {@link InboxEvent.bodyPrunedAt}. */
  readonly rawBody: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** When retention dropped the body and headers (docs/retention.md), or null while kept. */
  readonly bodyPrunedAt: string | null;
  readonly receivedAt: string;
  readonly status: InboxStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly processedAt: string | null;
  readonly resourceKind: string | null;
  readonly resourceId: string | null;
  readonly resourceReference: string | null;
  readonly traceId: string | null;
}

export interface InsertInboxResult {
  readonly inboxId: number;
  /** True when an event with the same dedupe key was already in the inbox; nothing was added. */
  readonly duplicate: boolean;
}
