import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { reasonOf } from '../error-reason.ts';

/**
 * The simulator's ground truth (`GET /__sim/ground-truth`, `SimControl.groundTruth()`), as far
 * as the auditor reads it. Parsed tolerantly: unknown fields are ignored, and only what is
 * compared must be present.
 */
const money = z.number().refine(Number.isSafeInteger, 'must be a safe integer');
const truthSchema = z.object({
  now: z.string().optional(),
  items: z.array(
    z.object({
      kind: z.string(),
      id: z.union([z.string(), z.number()]).transform(String),
      mode: z.string(),
      status: z.string(),
    }),
  ),
  movements: z.array(
    z.object({
      id: z.string(),
      mode: z.string(),
      accountType: z.string(),
      currency: z.string(),
      amount: money,
      kind: z.string(),
      resourceId: z.union([z.string(), z.number()]).transform(String).optional(),
    }),
  ),
  balances: z.record(
    z.string(),
    z.array(z.object({ accountType: z.string(), currency: z.string(), amount: money })),
  ),
});

export type GroundTruth = z.infer<typeof truthSchema>;

/**
 * What `runAudit` accepts: the shape above, read-only, ids as strings or numbers, so the
 * simulator's own `groundTruth()` can be passed as is (it is checked and normalised first).
 */
export interface GroundTruthInput {
  readonly items: readonly {
    readonly kind: string;
    readonly id: string | number;
    readonly mode: string;
    readonly status: string;
  }[];
  readonly movements: readonly {
    readonly id: string;
    readonly mode: string;
    readonly accountType: string;
    readonly currency: string;
    readonly amount: number;
    readonly kind: string;
    readonly resourceId?: string | number | undefined;
  }[];
  readonly balances: Readonly<
    Record<string, readonly { accountType: string; currency: string; amount: number }[]>
  >;
}

/**
 * Why a truth cannot be read or does not have the expected shape, as data: `source` is the
 * path or URL it was read from (undefined: an object handed over, e.g. by a test).
 */
export type GroundTruthRefusal =
  | { readonly code: 'truth_unreachable'; readonly source: string; readonly reason: string }
  | { readonly code: 'truth_http_status'; readonly source: string; readonly status: number }
  | { readonly code: 'truth_unreadable'; readonly source: string; readonly reason: string }
  | { readonly code: 'truth_not_json'; readonly source: string; readonly reason: string }
  | {
      readonly code: 'truth_invalid';
      readonly source: string | undefined;
      /** Where in the document, `(root)` for the whole. */
      readonly path: string;
      readonly problem: string;
    };

function plainMessage(refusal: GroundTruthRefusal): string {
  switch (refusal.code) {
    case 'truth_unreachable':
      return `the ground truth at ${refusal.source} cannot be reached (${refusal.reason})`;
    case 'truth_http_status':
      return `the ground truth at ${refusal.source} answered HTTP ${refusal.status}`;
    case 'truth_unreadable':
      return `the ground truth file ${refusal.source} cannot be read (${refusal.reason})`;
    case 'truth_not_json':
      return `the ground truth ${refusal.source} is not JSON (${refusal.reason})`;
    case 'truth_invalid':
      return `${refusal.source ?? 'the ground truth'} is not a simulator ground truth: ${refusal.path} ${refusal.problem} → give the JSON of GET /__sim/ground-truth`;
  }
}

/** A truth that cannot be read or does not have the expected shape; `refusal` says why. */
export class GroundTruthError extends Error {
  override readonly name = 'GroundTruthError';
  constructor(readonly refusal: GroundTruthRefusal) {
    super(plainMessage(refusal));
  }
}

/** Checks an object (e.g. `sim.control.groundTruth()`) against the shape the auditor reads. */
export function parseGroundTruth(value: unknown, source?: string): GroundTruth {
  const parsed = truthSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GroundTruthError({
      code: 'truth_invalid',
      source,
      path: issue.path.join('.') || '(root)',
      problem: issue.message,
    });
  }
  return parsed.data;
}

/** Reads the truth from a file path or an http(s) URL (the simulator's control surface). */
export async function loadGroundTruth(source: string): Promise<GroundTruth> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    let response: Response;
    try {
      response = await fetch(source);
    } catch (error) {
      throw new GroundTruthError({ code: 'truth_unreachable', source, reason: reasonOf(error) });
    }
    if (!response.ok) {
      throw new GroundTruthError({ code: 'truth_http_status', source, status: response.status });
    }
    text = await response.text();
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (error) {
      throw new GroundTruthError({ code: 'truth_unreadable', source, reason: reasonOf(error) });
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GroundTruthError({ code: 'truth_not_json', source, reason: reasonOf(error) });
  }
  return parseGroundTruth(value, source);
}
