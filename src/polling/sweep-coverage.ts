import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { readCheckpoint } from './checkpoint.repository.ts';
import { SWEEP_KINDS } from './list-streams.ts';
import { sweepStreamKey } from './run-sweep.ts';

/**
 * Whether the sweeps vouch for a window: every list's checkpoint is past its end, so every item
 * created in it was applied whatever its webhooks did (docs/processing.md). Returns undefined
 * when covered, or why not, in one line.
 */
export function sweepCoverage(db: Kysely<Database>, environment: string) {
  return async (window: { from: string; to: string }): Promise<string | undefined> => {
    const gaps: string[] = [];
    for (const kind of SWEEP_KINDS) {
      const checkpoint = await readCheckpoint(db, sweepStreamKey(kind, environment));
      if (!checkpoint) gaps.push(`${kind} were never swept`);
      else if (checkpoint.position < window.to) {
        gaps.push(`${kind} are swept only up to ${checkpoint.position}`);
      }
    }
    return gaps.length === 0
      ? undefined
      : `the sweeps have not covered the day: ${gaps.join('; ')} (see paysync runs)`;
  };
}
