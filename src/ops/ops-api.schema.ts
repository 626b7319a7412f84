import { z } from 'zod';
import { BREAK_KINDS, EXPECTATION_STATES, LISTED_BAD_ROWS } from '../expectations/index.ts';

/**
 * The zod schemas of the ops API. The handlers validate requests with them and
 * scripts/generate-ops-openapi.ts turns the same objects into docs/ops-api.openapi.json, so
 * the document cannot drift from what the server checks.
 */

const isoDateTime = z.iso
  .datetime()
  .meta({ description: 'ISO 8601 UTC datetime', example: '2026-11-23T09:30:00.000Z' });

/** One refused item of an expectation batch (POST /api/v1/expectations). */
export const badExpectation = z
  .object({
    index: z.number().int().meta({ description: 'Position in the array, from 0' }),
    line: z.number().int().meta({ description: 'index + 1, as a file line would be numbered' }),
    field: z.string(),
    reason: z.string(),
  })
  .meta({ id: 'BadExpectation' });

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'bad_parameter' }),
      message: z.string().meta({ example: 'limit: must be at most 200' }),
      bad: z
        .array(badExpectation)
        .optional()
        .meta({ description: 'A refused expectation batch: its bad items (the first 20)' }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer has this one shape' });

export const pageQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(200, 'must be at most 200')
    .default(50)
    .meta({ description: 'Rows per page', example: 50 }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a nextCursor of an earlier answer')
    .optional()
    .meta({ description: 'The `nextCursor` of the previous page; opaque' }),
});

export const resourceQuery = pageQuery.extend({
  status: z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/, 'must be one status or several, comma-separated')
    .optional()
    .meta({ description: 'Only these statuses, comma-separated (as `paysync list --status`)' }),
  since: isoDateTime
    .optional()
    .meta({ description: 'Only resources the service updated at or after this instant' }),
});

export const historyQuery = pageQuery.extend({
  account: z
    .string()
    .regex(/^[a-z_]+$/, 'must be an account type such as transfer')
    .optional()
    .meta({ description: 'One service account type; all when absent' }),
  since: isoDateTime.optional().meta({ description: 'Only snapshots at or after this instant' }),
});

export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .meta({ description: 'pi_…, tr_…, or a refund id (refund:12 / payment_refund:12)' }),
});

export const numericIdParam = z.object({
  id: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .positive('must be positive'),
});

export const dateParam = z.object({
  date: z.iso.date('must be a date YYYY-MM-DD').meta({ example: '2026-11-22' }),
});

export const replayBody = z
  .strictObject({
    inboxId: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .positive('must be positive')
      .optional()
      .meta({ description: 'One inbox event' }),
    since: isoDateTime.optional().meta({ description: 'Every event received since this instant' }),
  })
  .refine((body) => (body.inboxId === undefined) !== (body.since === undefined), {
    message: 'give exactly one of inboxId or since',
  })
  .meta({
    id: 'ReplayRequest',
    description: 'One inbox event by id, or every event received since an instant; idempotent',
  });

const openRecord = z.record(z.string(), z.unknown());

export const mirrorRecord = z
  .looseObject({
    kind: z.enum(['payment_intent', 'transfer', 'refund', 'payment_refund']),
    id: z.string(),
    status: z.string(),
    upstreamStatus: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    failureCode: z.string().nullable(),
    failureMessage: z.string().nullable(),
    createdAt: z.string().nullable(),
    updatedAt: z.string(),
    firstSeenAt: z.string(),
    lastSyncedAt: z.string(),
  })
  .meta({ id: 'MirrorRecord', description: 'A mirrored resource; kind-specific fields follow' });

export const discrepancy = z
  .object({
    id: z.number().int(),
    kind: z.string(),
    resourceKind: z.string().nullable(),
    resourceId: z.string().nullable(),
    detail: openRecord,
    inboxId: z.number().int().nullable(),
    createdAt: z.string(),
    resolvedAt: z.string().nullable(),
    line: z.string().meta({ description: 'One-line explanation' }),
    action: z.string().meta({ description: 'Suggested action' }),
  })
  .meta({ id: 'Discrepancy' });

export const itemView = z
  .object({
    record: mirrorRecord,
    history: z.array(openRecord),
    journals: z.array(openRecord),
    discrepancies: z.array(discrepancy),
    inboxEvents: z.array(
      z.object({
        inboxId: z.number().int(),
        eventId: z.string().nullable(),
        eventType: z.string().nullable(),
        status: z.string(),
        receivedAt: z.string(),
        processedAt: z.string().nullable(),
        attempts: z.number().int(),
        lastError: z.string().nullable(),
        body: z.string().meta({ description: 'The raw body as text; empty once pruned' }),
        bodyPrunedAt: z
          .string()
          .nullable()
          .meta({ description: 'When retention dropped the raw body (docs/retention.md)' }),
      }),
    ),
  })
  .meta({ id: 'ItemView', description: 'The `paysync show` view of one item' });

export const accountComparison = z
  .object({
    accountType: z.string(),
    account: z.string(),
    currency: z.string(),
    asOf: z.string(),
    service: z.number().int(),
    ledger: z.number().int(),
    difference: z.number().int(),
    explained: z.number().int(),
    unexplained: z.number().int(),
    verdict: z.enum(['agrees', 'pending', 'drift']),
    candidates: z.array(openRecord),
  })
  .meta({ id: 'AccountComparison' });

export const balancesBody = z
  .object({
    data: z.array(accountComparison),
    /** Accounts the ledger holds that the newest answer does not list: not compared, never 0. */
    unanswered: z.array(
      z
        .object({
          accountType: z.string(),
          account: z.string(),
          currency: z.string(),
          ledger: z.number().int(),
          asOf: z.string(),
        })
        .meta({
          id: 'UnansweredAccount',
          description:
            "An account the ledger holds that the service's newest answer (asOf) does not list: its service balance is unknown, not 0, so it is not compared",
        }),
    ),
    ledger: z.array(
      z.object({ account: z.string(), currency: z.string(), balance: z.number().int() }),
    ),
  })
  .meta({ id: 'Balances' });

export const snapshot = z
  .object({
    accountType: z.string(),
    currency: z.string(),
    amount: z.number().int(),
    asOf: z.string(),
    takenAt: z.string(),
    kind: z.string(),
  })
  .meta({ id: 'BalanceSnapshot' });

export const verdictSummary = z
  .object({
    day: z.string(),
    verdict: z.string(),
    computedAt: z.string(),
    breaks: z.number().int(),
  })
  .meta({ id: 'VerdictSummary' });

export const dailyReport = z
  .looseObject({
    environment: z.string(),
    day: z.string(),
    timeZone: z.string(),
    window: z.object({ from: z.string(), to: z.string() }),
    generatedAt: z.string(),
    verdict: z.string(),
    counts: z.array(openRecord),
    money: z.array(openRecord),
    pending: z.array(openRecord),
    breaks: z.array(openRecord),
    endOfDayBalances: z.array(openRecord).nullable(),
    incomplete: z.array(z.string()),
  })
  .meta({ id: 'DailyReport' });

const storedVerdictMark = z.object({ verdict: z.string(), computedAt: z.string() });

export const verdictStorage = z
  .object({
    state: z.enum(['stored', 'kept', 'due', 'not_scheduled']).meta({
      description:
        'stored: the verdict computed now is the stored one (computedAt); kept: a stored RECONCILED (stored) that the verdicts task does not judge again; due: the verdicts task stores it at `at` (after the end-of-day snapshot at `snapshotAt`, when missing); not_scheduled: no task will (`because`)',
    }),
    computedAt: z.string().optional(),
    stored: storedVerdictMark.optional(),
    at: z.string().optional(),
    snapshotAt: z.string().optional(),
    replaces: storedVerdictMark.optional(),
    because: z
      .enum(['verdict_task_off', 'balance_task_off', 'older_than_lookback', 'before_first_item'])
      .optional(),
  })
  .meta({ id: 'VerdictStorage' });

export const reportBody = z
  .object({
    data: dailyReport,
    stored: z.boolean().meta({
      description: 'True when the verdict computed now is the stored verdict of the day',
    }),
    storage: verdictStorage,
  })
  .meta({ id: 'ReportAnswer' });

export const replayResult = z
  .object({
    data: z.object({
      matched: z.number().int(),
      queued: z.number().int(),
      alreadyQueued: z.number().int(),
      reopened: z.number().int(),
    }),
  })
  .meta({ id: 'ReplayResult' });

export const resolvedBody = z
  .object({ data: z.object({ id: z.number().int(), resolved: z.boolean() }) })
  .meta({ id: 'Resolved' });

export const alertActionBody = z
  .object({
    data: z.object({
      id: z.number().int(),
      acked: z.literal(true).optional(),
      resolved: z.literal(true).optional(),
    }),
  })
  .meta({
    id: 'AlertAction',
    description: '`acked: true` after an ack, `resolved: true` after a resolve',
  });

export const alertView = z
  .object({
    id: z.number().int(),
    kind: z.string(),
    state: z.string().meta({ description: '`open`, `acked` or `resolved`' }),
    summary: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'Alert' });

export const runView = z
  .object({
    task: z.string(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    outcome: z.string(),
  })
  .meta({ id: 'Run' });

export const exportQuery = pageQuery.extend({
  kind: z
    .enum(['closed_period', 'daily'])
    .optional()
    .meta({ description: "Only closed periods' frozen files, or only scheduled daily files" }),
  format: z
    .enum(['csv', 'jsonl', 'hledger', 'beancount'])
    .optional()
    .meta({ description: 'Only files of this format' }),
});

export const exportFileParam = z.object({
  id: z
    .string()
    .regex(
      /^paysync-\d{4}-\d{2}(?:-\d{2})?\.(?:csv|jsonl|journal|beancount)$/,
      'must be an export file name such as paysync-2026-11-05.csv',
    )
    .meta({ description: 'The file name, as `id` in the list', example: 'paysync-2026-11-05.csv' }),
});

const currencySums = z
  .object({
    currency: z.string(),
    debits: z.number().int().meta({ description: 'Sum of the positive lines' }),
    credits: z
      .number()
      .int()
      .meta({ description: 'Sum of the negative lines, as a positive number' }),
  })
  .meta({ id: 'CurrencySums', description: 'Minor units per currency' });

export const exportView = z
  .object({
    id: z.string().meta({ description: 'The file name; download it at /api/v1/exports/{id}' }),
    kind: z.enum(['closed_period', 'daily']),
    period: z.string().meta({ description: '`YYYY-MM` (closed period) or `YYYY-MM-DD` (day)' }),
    format: z.enum(['csv', 'jsonl', 'hledger', 'beancount']),
    rows: z.number().int(),
    sha256: z.string(),
    bytes: z.number().int().nullable().meta({ description: 'Null when the file is missing' }),
    sums: z.array(currencySums).nullable().meta({ description: 'Daily files only' }),
    verdict: z.string().nullable().meta({ description: "The day's verdict when written" }),
    at: z.string().meta({ description: 'Generated (day) or closed (period) at' }),
    forced: z.boolean().nullable().meta({ description: 'Closed periods: closed with --force' }),
    reason: z.string().nullable().meta({ description: "Closed periods: the close's reason" }),
  })
  .meta({ id: 'ExportFile' });

/** `{ data, nextCursor }`: the answer of every list route. */
export function page<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().meta({ description: 'Null on the last page' }),
    })
    .meta({ id });
}

export const recordPage = page(mirrorRecord, 'MirrorRecordPage');
export const discrepancyPage = page(discrepancy, 'DiscrepancyPage');
export const snapshotPage = page(snapshot, 'BalanceSnapshotPage');
export const verdictPage = page(verdictSummary, 'VerdictPage');
export const alertPage = page(alertView, 'AlertPage');
export const runPage = page(runView, 'RunPage');
export const exportPage = page(exportView, 'ExportFilePage');

// --- the relay's endpoints (docs/relay.md) ---

export const endpointIdParam = z.object({
  id: z
    .string()
    .regex(/^ep_[0-9a-f]{20}$/, 'must be an endpoint id: ep_ and 20 hex digits')
    .meta({ description: 'The endpoint id', example: 'ep_5f0c1e2d3a4b5c6d7e8f' }),
});

const typePatterns = z
  .array(z.string().max(100))
  .max(50, 'must list at most 50 patterns')
  .meta({
    description:
      'Event types or patterns: `day.verdict`, `transfer.*`, `*` (see docs/relay.md for the catalog)',
    example: ['transfer.*', 'day.verdict'],
  });

export const endpointAddBody = z
  .strictObject({
    url: z
      .string()
      .min(1, 'must be a URL')
      .max(2000, 'must be at most 2000 characters')
      .meta({ description: 'https:// address of the receiving system' }),
    events: typePatterns
      .optional()
      .meta({ description: 'The types it receives; absent or empty: every type' }),
    description: z.string().max(500, 'must be at most 500 characters').optional(),
  })
  .meta({ id: 'EndpointRequest', description: 'A new endpoint' });

export const endpointRedeliverBody = z
  .strictObject({
    since: isoDateTime.optional().meta({ description: 'Every event emitted since this instant' }),
    types: typePatterns
      .optional()
      .meta({ description: 'With `since`: only these types (besides the subscription)' }),
    event: z
      .string()
      .regex(/^evt_[0-9A-Za-z_]+$/, 'must be an event id (evt_…)')
      .optional()
      .meta({ description: 'One event by id, instead of `since`' }),
  })
  .refine((body) => (body.since === undefined) !== (body.event === undefined), {
    message: 'give exactly one of since or event',
  })
  .refine((body) => body.event === undefined || body.types === undefined, {
    message: 'types goes with since, not with event',
  })
  .meta({
    id: 'EndpointRedeliveryRequest',
    description: 'Which events to deliver to the endpoint again (its subscription still applies)',
  });

export const pendingQuery = pageQuery.extend({
  endpoint: endpointIdParam.shape.id
    .optional()
    .meta({ description: 'Only this endpoint; every endpoint when absent' }),
});

export const endpointView = z
  .object({
    id: z.string().meta({ example: 'ep_5f0c1e2d3a4b5c6d7e8f' }),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()).nullable().meta({ description: 'Null: every type' }),
    status: z.enum(['enabled', 'disabled']),
    disabledReason: z.string().nullable().meta({
      description:
        '`operator` when disabled by hand; the deliverer gives its own (a 410, failing too long)',
    }),
    disabledAt: z.string().nullable(),
    failingSince: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .meta({ description: 'After a rotation: until when the previous secret also signs' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Endpoint', description: 'An endpoint; its secret is never part of it' });

const attemptCounts = z.object({
  delivered: z.number().int(),
  failed: z.number().int(),
  timeout: z.number().int(),
  error: z.number().int(),
  gone: z.number().int(),
});

export const endpointHealth = z
  .object({
    state: z.enum(['healthy', 'failing', 'disabled']),
    failingSince: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    pending: z.number().int().meta({ description: 'Deliveries not yet made' }),
    oldestPendingAt: z
      .string()
      .nullable()
      .meta({ description: 'When the oldest pending event was emitted' }),
    oldestPendingAgeMs: z.number().int().nullable(),
    last24h: attemptCounts.meta({ description: 'Attempts of the last 24 hours by outcome' }),
  })
  .meta({ id: 'EndpointHealth' });

export const deliveryAttempt = z
  .object({
    attemptedAt: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    subject: z.string().nullable(),
    attempt: z.number().int(),
    outcome: z.string().meta({ description: '`delivered`, `failed`, `timeout`, `error`, `gone`' }),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    excerpt: z
      .string()
      .nullable()
      .meta({ description: 'At most 1 KB of the answer, as text (never HTML)' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'DeliveryAttempt', description: 'One POST of the delivery log' });

export const undelivered = z
  .object({
    endpoint: z.string(),
    eventId: z.string(),
    type: z.string(),
    subject: z.string().nullable(),
    emittedAt: z.string(),
    state: z.enum(['pending', 'gave_up']),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable().meta({ description: 'Null once given up' }),
  })
  .meta({ id: 'UndeliveredEvent', description: 'A pending or given-up delivery' });

const endpointWithHealth = z
  .object({ endpoint: endpointView, health: endpointHealth })
  .meta({ id: 'EndpointWithHealth' });

export const endpointPage = page(endpointWithHealth, 'EndpointPage');
export const deliveryAttemptPage = page(deliveryAttempt, 'DeliveryAttemptPage');
export const undeliveredPage = page(undelivered, 'UndeliveredEventPage');

export const endpointCreated = z
  .object({
    data: z.object({
      endpoint: endpointView,
      secret: z
        .string()
        .meta({ description: 'The `whsec_…` signing secret: answered this once, never again' }),
    }),
  })
  .meta({ id: 'EndpointCreated' });

export const endpointDetailBody = z
  .object({
    data: z.object({
      endpoint: endpointView,
      health: endpointHealth,
      attempts: z.array(deliveryAttempt).meta({ description: 'The last 20, newest first' }),
    }),
  })
  .meta({ id: 'EndpointDetail' });

export const endpointBody = z.object({ data: endpointView }).meta({ id: 'EndpointAnswer' });

export const endpointEnabledBody = z
  .object({
    data: z.object({
      endpoint: endpointView,
      pending: z.number().int().meta({ description: 'Pending deliveries now due' }),
    }),
  })
  .meta({ id: 'EndpointEnabled' });

export const endpointRotatedBody = z
  .object({
    data: z.object({
      endpoint: endpointView,
      secret: z.string().meta({ description: 'The new secret: answered this once, never again' }),
      previousValidUntil: z.string(),
    }),
  })
  .meta({ id: 'EndpointRotated' });

export const endpointDeletedBody = z
  .object({ data: z.object({ deleted: endpointView }) })
  .meta({ id: 'EndpointDeleted' });

export const endpointPingBody = z
  .object({
    data: z.object({
      eventId: z.string().meta({ description: "The ping's webhook-id (not stored)" }),
      outcome: z.enum(['delivered', 'failed', 'timeout', 'error', 'gone']),
      statusCode: z.number().int().optional(),
      durationMs: z.number().int(),
      excerpt: z.string().optional().meta({ description: 'At most 1 KB of the answer, as text' }),
      error: z.string().optional(),
    }),
  })
  .meta({ id: 'EndpointPing', description: 'How the endpoint answered a signed `ping`' });

export const endpointRedeliveryResult = z
  .object({
    data: z.object({
      matched: z.number().int(),
      created: z.number().int(),
      reset: z.number().int(),
      alreadyPending: z.number().int(),
      endpointEnabled: z.boolean(),
    }),
  })
  .meta({ id: 'EndpointRedeliveryResult' });

// --- expectations (docs/expectations.md) ---

/** The most expectations one POST may carry; a bigger batch is refused with 413. */
export const EXPECTATION_BATCH_MAX = 10_000;

export const expectationIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(500)
    .meta({ description: "The merchant's expectation id", example: 'order-4711' }),
});

export const expectationListQuery = pageQuery.extend({
  state: z.enum(EXPECTATION_STATES).optional().meta({
    description: 'Only this state (by window end); all, latest loaded first, when absent',
  }),
});

export const breakListQuery = pageQuery.extend({
  state: z.enum(['open', 'resolved']).optional().meta({ description: 'Only this state' }),
  kind: z.enum(BREAK_KINDS).optional().meta({ description: 'Only this kind of break' }),
});

export const expectationImportQuery = z.object({
  partial: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'Load the good items even when some are bad (they are listed)' }),
});

const minorUnitsInput = z
  .union([z.number().int().nonnegative(), z.string()])
  .meta({ description: 'Whole minor units (2500 for 25.00 EUR)' });

/** One expectation as the file format writes it (docs/expectations.md); checked by the domain. */
export const expectationInput = z
  .looseObject({
    expectation_id: z.string(),
    direction: z.enum(['in', 'out']),
    currency: z.string().meta({ example: 'XOF' }),
    amount: minorUnitsInput.optional(),
    amount_min: minorUnitsInput.optional(),
    amount_max: minorUnitsInput.optional(),
    window_from: z
      .string()
      .meta({ description: 'UTC ISO time, or a date YYYY-MM-DD in the books time zone' }),
    window_to: z.string(),
    reference: z.string().nullable().optional(),
    item_id: z.string().nullable().optional(),
    counterparty: z.string().nullable().optional(),
    purchase_reference: z.string().nullable().optional(),
    description_pattern: z.string().nullable().optional(),
    item_kinds: z
      .union([z.array(z.string()), z.string()])
      .nullable()
      .optional(),
    allow_split: z.union([z.boolean(), z.string()]).optional(),
    match_group: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .meta({
    id: 'ExpectationInput',
    description:
      'One expectation, with the field names of the file format (docs/expectations.md); each is checked as a file row is',
  });

export const expectationBatchBody = z.array(expectationInput).meta({
  id: 'ExpectationBatch',
  description: `Up to ${EXPECTATION_BATCH_MAX} expectations; item N is "line N + 1" in the refusals`,
});

export const expectationImportBody = z
  .object({
    data: z.object({
      created: z.number().int(),
      updated: z.number().int(),
      unchanged: z.number().int(),
      matched: z
        .number()
        .int()
        .meta({ description: 'Of the loaded items, how many are matched once loaded' }),
      partiallyMatched: z.number().int(),
      rows: z.number().int().meta({ description: 'Items read, good and bad' }),
      loaded: z.boolean(),
      badCount: z.number().int(),
      bad: z
        .array(badExpectation)
        .meta({ description: `The first ${LISTED_BAD_ROWS} bad items (with partial=true)` }),
    }),
  })
  .meta({ id: 'ExpectationImportResult' });

export const expectationView = z
  .looseObject({
    expectation_id: z.string(),
    direction: z.enum(['in', 'out']),
    currency: z.string(),
    amount_min: z.number().int(),
    amount_max: z.number().int(),
    window_from: z.string(),
    window_to: z.string(),
    counterparty: z.string().nullable().meta({ description: 'In full: the API is admin-only' }),
    state: z.enum(EXPECTATION_STATES),
    matched_amount: z.number().int(),
    version: z.number().int(),
    resolved_by: z.string().nullable(),
    resolved_at: z.string().nullable(),
    resolution_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Expectation', description: 'The content as loaded, and what became of it' });

export const expectationBreak = z
  .object({
    id: z.number().int(),
    kind: z.enum(BREAK_KINDS),
    expectation_id: z.string().nullable().meta({ description: 'Null for an `unexpected` item' }),
    item_kind: z.string().nullable(),
    item_id: z.string().nullable(),
    difference: z.number().int().nullable().meta({ description: 'Settled minus expected' }),
    currency: z.string().nullable(),
    explanation: z.string(),
    suggested_action: z.string(),
    state: z.enum(['open', 'resolved']),
    resolved_by: z.string().nullable(),
    resolved_at: z.string().nullable(),
    resolution_reason: z.string().nullable(),
    detected_at: z.string(),
  })
  .meta({ id: 'ExpectationBreak' });

export const expectationPage = page(expectationView, 'ExpectationPage');
export const breakPage = page(expectationBreak, 'ExpectationBreakPage');

export const expectationDetailBody = z
  .object({
    data: z.object({
      expectation: expectationView,
      history: z.array(
        z.object({
          version: z.number().int(),
          change: z.string(),
          source: z.string(),
          actor: z.string().nullable(),
          before: z.unknown(),
          after: z.unknown(),
          at: z.string(),
        }),
      ),
      matches: z.array(
        z.object({
          item_kind: z.string(),
          item_id: z.string(),
          amount: z.number().int(),
          rule: z.string(),
          late: z.boolean(),
          settled_at: z.string(),
          matched_at: z.string(),
        }),
      ),
      breaks: z.array(expectationBreak),
    }),
  })
  .meta({ id: 'ExpectationDetail' });

const manualResolution = {
  reason: z
    .string({ error: 'is required: say why, it is kept with who and when' })
    .meta({ description: 'Why (required, at most 1000 characters); kept verbatim' }),
  by: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'Who resolves it; `ops-api` when absent' }),
};

export const expectationResolveBody = z
  .strictObject(manualResolution)
  .meta({ id: 'ExpectationResolveRequest' });

export const expectationResolvedBody = z
  .object({
    data: z.object({
      outcome: z.enum(['resolved', 'already_resolved']),
      expectation: expectationView,
      breaksResolved: z.number().int().meta({ description: 'Its open breaks, resolved with it' }),
    }),
  })
  .meta({ id: 'ExpectationResolved' });

export const breakResolveBody = z
  .strictObject({
    kind: z.enum(BREAK_KINDS).meta({ description: 'Open breaks of this kind' }),
    maxDifference: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .nonnegative('must not be negative')
      .optional()
      .meta({
        description: 'Only breaks whose difference is at most this, either way (minor units)',
      }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a currency code such as XOF')
      .optional(),
    from: isoDateTime.optional().meta({ description: 'Detected at or after' }),
    to: isoDateTime.optional().meta({ description: 'Detected before' }),
    dryRun: z.boolean().optional().meta({ description: 'Only list what would be resolved' }),
    ...manualResolution,
  })
  .meta({ id: 'BreakResolveRequest', description: 'Every open break the filter selects' });

export const breakResolvedBody = z
  .object({
    data: z.object({
      count: z.number().int(),
      breaks: z.array(expectationBreak),
      dryRun: z.boolean(),
    }),
  })
  .meta({ id: 'BreaksResolved' });

export const oneBreakResolvedBody = z
  .object({
    data: z.object({
      outcome: z.enum(['resolved', 'already_resolved']),
      break: expectationBreak,
    }),
  })
  .meta({ id: 'BreakResolved' });
