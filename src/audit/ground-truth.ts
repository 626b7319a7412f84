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

/** A truth that cannot be read or does not have the expected shape. */
export class GroundTruthError extends Error {
  override readonly name = 'GroundTruthError';
}

/** Checks an object (e.g. `sim.control.groundTruth()`) against the shape the auditor reads. */
export function parseGroundTruth(value: unknown, source = 'the ground truth'): GroundTruth {
  const parsed = truthSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GroundTruthError(
      `${source} is not a simulator ground truth: ${issue.path.join('.') || '(root)'} ${issue.message} → give the JSON of GET /__sim/ground-truth`,
    );
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
      throw new GroundTruthError(
        `--truth ${source}: cannot reach it (${reasonOf(error)}) → is the simulator running?`,
      );
    }
    if (!response.ok) {
      throw new GroundTruthError(
        `--truth ${source}: answered HTTP ${response.status} → use the simulator's /__sim/ground-truth URL`,
      );
    }
    text = await response.text();
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (error) {
      throw new GroundTruthError(
        `--truth ${source}: cannot read the file (${reasonOf(error)}) → give a JSON file saved from /__sim/ground-truth`,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GroundTruthError(`--truth ${source}: not JSON (${reasonOf(error)})`);
  }
  return parseGroundTruth(value, `--truth ${source}`);
}
