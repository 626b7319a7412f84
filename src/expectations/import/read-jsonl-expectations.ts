import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { AMOUNT_MAJOR_HINT, type SourceRow } from './source-row.ts';

/** The rows of a JSONL file, streamed: one JSON object per line; blank lines are skipped. */
export async function* readJsonlExpectations(input: Readable): AsyncGenerator<SourceRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield {
        line,
        problem: { field: 'line', reason: `not valid JSON (${(error as Error).message})` },
      };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      yield { line, problem: { field: 'line', reason: 'must be one JSON object' } };
      continue;
    }
    if ('amount_major' in value) {
      yield { line, problem: { field: 'amount_major', reason: AMOUNT_MAJOR_HINT } };
      continue;
    }
    yield { line, raw: value as Record<string, unknown> };
  }
}
