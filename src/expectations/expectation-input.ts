import { createHash } from 'node:crypto';
import { z } from 'zod';
import { dayWindow, isCalendarDay } from '../books-calendar/index.ts';
import { isKnownCurrency } from '../money/index.ts';
import type { ResourceKind } from '../resources/index.ts';
import type { ExpectationDirection } from './expectations.tables.ts';

/**
 * One expectation as the merchant writes it (a CSV row, a JSONL line, `paysync expect add`), its
 * validation and its one canonical form (docs/expectations.md, "The file format"). Every field
 * name here is the column name of the file; an error names the field.
 */

/** The item kinds each direction may be paid by: `in` is money received, `out` money paid. */
export const KINDS_BY_DIRECTION: Readonly<Record<ExpectationDirection, readonly ResourceKind[]>> = {
  in: ['payment_intent', 'payment_link', 'refund'],
  out: ['transfer', 'payment_refund'],
};

/** The fields a file may carry (besides `metadata` / `metadata.<key>`). */
export const EXPECTATION_FIELDS = [
  'expectation_id',
  'direction',
  'currency',
  'amount',
  'amount_min',
  'amount_max',
  'window_from',
  'window_to',
  'reference',
  'item_id',
  'counterparty',
  'purchase_reference',
  'description_pattern',
  'item_kinds',
  'allow_split',
  'match_group',
] as const;

export type ExpectationField = (typeof EXPECTATION_FIELDS)[number] | 'metadata';

/** The merchant's content of one expectation, canonical: what is stored and hashed. */
export interface ExpectationContent {
  readonly expectation_id: string;
  readonly direction: ExpectationDirection;
  readonly currency: string;
  /** Integer minor units; an exact amount has min = max. */
  readonly amount_min: number;
  readonly amount_max: number;
  /** UTC ISO 8601 with milliseconds. */
  readonly window_from: string;
  readonly window_to: string;
  readonly reference: string | null;
  readonly item_id: string | null;
  readonly counterparty: string | null;
  readonly purchase_reference: string | null;
  readonly description_pattern: string | null;
  /** null: every kind of its direction. */
  readonly item_kinds: readonly ResourceKind[] | null;
  readonly allow_split: boolean;
  readonly match_group: string | null;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
}

/** A valid expectation: its canonical content and the hash that makes imports idempotent. */
export interface ParsedExpectation {
  readonly content: ExpectationContent;
  readonly contentHash: string;
}

/** Why an expectation is refused: the field and what is wrong with it. */
export interface ExpectationProblem {
  readonly field: string;
  readonly reason: string;
}

export type ExpectationParseResult =
  | { readonly ok: true; readonly value: ParsedExpectation }
  | { readonly ok: false; readonly problem: ExpectationProblem };

const MAX_TEXT = 500;

/** A tab, a newline or another control character: never meaningful in an id or a reference. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Empty cells and absent keys alike mean "not given". */
const blankToUndefined = (value: unknown) =>
  value === null || (typeof value === 'string' && value.trim() === '')
    ? undefined
    : typeof value === 'string'
      ? value.trim()
      : value;

const text = (max = MAX_TEXT) =>
  z.preprocess(
    blankToUndefined,
    z
      .string({ error: 'must be text' })
      .max(max, `must be at most ${max} characters`)
      .refine((value) => !hasControlCharacter(value), 'must not hold control characters')
      .optional(),
  );

/** Minor units: a JSON integer or a CSV cell of digits; never a decimal, never negative. */
const minorUnits = z.preprocess(
  (value) => {
    const given = blankToUndefined(value);
    return typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : given;
  },
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      if (
        typeof value !== 'number' ||
        !Number.isSafeInteger(value) ||
        value < 0 ||
        Object.is(value, -0)
      ) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a whole, non-negative number of minor units (the currency's smallest unit, e.g. 2500 for 25.00 EUR), not ${JSON.stringify(value)}`,
        });
      }
    }),
);

/** A UTC ISO time with a zone (Z or an offset), or a bare date in the books' time zone. */
const WINDOW_EDGE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

const windowEdge = z.preprocess(
  blankToUndefined,
  z
    .string({ error: 'is required: a date (2030-01-10) or a UTC ISO 8601 time' })
    .refine(
      (value) =>
        isCalendarDay(value) ||
        (WINDOW_EDGE.test(value) &&
          isCalendarDay(value.slice(0, 10)) &&
          !Number.isNaN(Date.parse(value))),
      'must be a date (2030-01-10, that day in PAYSYNC_BOOKS_TIMEZONE) or an ISO 8601 time with its zone (2030-01-10T09:00:00Z)',
    ),
);

const booleanCell = z.preprocess(
  (value) => {
    const given = blankToUndefined(value);
    if (typeof given !== 'string') return given;
    const lower = given.toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : given;
  },
  z.boolean({ error: 'must be true or false' }).optional(),
);

const kindList = z.preprocess(
  (value) => {
    const given = blankToUndefined(value);
    return typeof given === 'string'
      ? given
          .split(';')
          .map((part) => part.trim())
          .filter(Boolean)
      : given;
  },
  z.array(z.string(), { error: 'must be item kinds separated by ;' }).optional(),
);

const metadataValue = z.union([z.string().max(MAX_TEXT), z.number(), z.boolean()], {
  error: 'values must be text, numbers or true/false',
});

const expectationInputSchema = z.strictObject(
  {
    expectation_id: z.preprocess(
      blankToUndefined,
      z
        .string({ error: 'is required: your own id of this expectation' })
        .max(200, 'must be at most 200 characters')
        .refine((value) => !hasControlCharacter(value), 'must not hold control characters'),
    ),
    direction: z.preprocess(
      blankToUndefined,
      z.enum(['in', 'out'], {
        error: 'must be in (money to receive) or out (money to pay)',
      }),
    ),
    currency: z.preprocess(
      (value) => {
        const given = blankToUndefined(value);
        return typeof given === 'string' ? given.toUpperCase() : given;
      },
      z
        .string({ error: 'is required: an ISO 4217 code such as XOF or EUR' })
        .refine(
          (value) => /^[A-Z]{3}$/.test(value) && isKnownCurrency(value),
          'must be an ISO 4217 code paysync knows (XOF, EUR, USD…)',
        ),
    ),
    amount: minorUnits,
    amount_min: minorUnits,
    amount_max: minorUnits,
    window_from: windowEdge,
    window_to: windowEdge,
    reference: text(),
    item_id: text(200),
    counterparty: text(100),
    purchase_reference: text(),
    description_pattern: text(),
    item_kinds: kindList,
    allow_split: booleanCell,
    match_group: text(200),
    metadata: z.preprocess(
      blankToUndefined,
      z
        .record(z.string().min(1, 'keys must not be empty').max(100), metadataValue, {
          error: 'must be an object of text, numbers or true/false',
        })
        .optional(),
    ),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? undefined : 'is not valid') },
);

type ExpectationInput = z.infer<typeof expectationInputSchema>;

/** What the bare-date window edges need: the books' time zone. */
export interface ExpectationInputOptions {
  /** IANA zone whose days a bare date names (`PAYSYNC_BOOKS_TIMEZONE`). */
  readonly timeZone: string;
}

function fail(field: string, reason: string): ExpectationParseResult {
  return { ok: false, problem: { field, reason } };
}

/**
 * Days already turned into windows: a file names few distinct days, and `dayWindow` builds an
 * `Intl.DateTimeFormat` per call (milliseconds each), which would dominate a large import.
 */
const dayWindows = new Map<string, { from: string; to: string }>();

/** A window edge as a UTC instant: a bare date starts its day (`from`) or ends it (`to`). */
function instantOf(edge: string, side: 'from' | 'to', timeZone: string): string {
  if (!isCalendarDay(edge)) return new Date(edge).toISOString();
  const key = `${timeZone} ${edge}`;
  let window = dayWindows.get(key);
  if (window === undefined) {
    if (dayWindows.size >= 10_000) dayWindows.clear();
    window = dayWindow(edge, timeZone);
    dayWindows.set(key, window);
  }
  return window[side];
}

/** Keys sorted at every depth, so the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) =>
    nested !== null && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(
          Object.entries(nested as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : nested,
  );
}

/** sha256 of the canonical JSON of the content. */
export function expectationContentHash(content: ExpectationContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

/**
 * Validates one expectation as written and turns it into its canonical content, or names the
 * first field that is wrong and why.
 */
export function parseExpectationInput(
  raw: unknown,
  options: ExpectationInputOptions,
): ExpectationParseResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return fail('expectation', 'must be an object of named fields');
  }
  const result = expectationInputSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      return fail(
        issue.keys.join(', '),
        `unknown field${issue.keys.length === 1 ? '' : 's'} (docs/expectations.md lists the fields; your own go in metadata)`,
      );
    }
    return fail(issue.path.map(String).join('.') || 'expectation', issue.message);
  }
  return canonical(result.data, options);
}

function canonical(
  input: ExpectationInput,
  { timeZone }: ExpectationInputOptions,
): ExpectationParseResult {
  const bounds = input.amount_min !== undefined || input.amount_max !== undefined;
  if (input.amount !== undefined && bounds) {
    return fail(
      'amount',
      'give either amount (exact) or amount_min and amount_max (bounds), not both',
    );
  }
  if (input.amount === undefined && !bounds) {
    return fail('amount', 'is required: amount (exact) or amount_min and amount_max (bounds)');
  }
  if (bounds && input.amount_min === undefined) {
    return fail('amount_min', 'is required with amount_max');
  }
  if (bounds && input.amount_max === undefined) {
    return fail('amount_max', 'is required with amount_min');
  }
  const amountMin = (input.amount ?? input.amount_min) as number;
  const amountMax = (input.amount ?? input.amount_max) as number;
  if (amountMin > amountMax) {
    return fail('amount_min', `${amountMin} is more than amount_max ${amountMax}`);
  }
  const windowFrom = instantOf(input.window_from, 'from', timeZone);
  const windowTo = instantOf(input.window_to, 'to', timeZone);
  // Two instants may be equal (a window of one instant); a day is never empty, so a window
  // that names one may not end where it starts.
  const namesADay = isCalendarDay(input.window_from) || isCalendarDay(input.window_to);
  if (windowFrom > windowTo || (namesADay && windowFrom === windowTo)) {
    return fail(
      'window_from',
      `${input.window_from} is after window_to ${input.window_to} (${windowFrom} > ${windowTo})`,
    );
  }
  let kinds: ResourceKind[] | null = null;
  if (input.item_kinds !== undefined && input.item_kinds.length > 0) {
    const allowed = KINDS_BY_DIRECTION[input.direction];
    const wrong = input.item_kinds.filter((kind) => !(allowed as string[]).includes(kind));
    if (wrong.length > 0) {
      return fail(
        'item_kinds',
        `${wrong.join(', ')} cannot pay an expectation of direction ${input.direction}: use ${allowed.join(', ')}`,
      );
    }
    // Order and repeats carry no meaning: sorted and unique, so they do not change the hash.
    kinds = [...new Set(input.item_kinds as ResourceKind[])].sort();
  }
  const content: ExpectationContent = {
    expectation_id: input.expectation_id,
    direction: input.direction,
    currency: input.currency,
    amount_min: amountMin,
    amount_max: amountMax,
    window_from: windowFrom,
    window_to: windowTo,
    reference: input.reference ?? null,
    item_id: input.item_id ?? null,
    counterparty: input.counterparty ?? null,
    purchase_reference: input.purchase_reference ?? null,
    description_pattern: input.description_pattern ?? null,
    item_kinds: kinds,
    allow_split: input.allow_split ?? false,
    match_group: input.match_group ?? null,
    metadata: input.metadata ?? {},
  };
  return { ok: true, value: { content, contentHash: expectationContentHash(content) } };
}
