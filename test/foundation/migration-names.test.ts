import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.ts';
import { MIGRATION_NAMES } from '../../migrations/names.ts';

// The read commands check for pending migrations against MIGRATION_NAMES, without loading the
// migration modules (issue 39); `paysync migrate` runs the modules of index.ts. They must agree.
describe('migrations/names.ts', () => {
  it('names the migrations of index.ts, in the same order', () => {
    expect(MIGRATION_NAMES).toEqual(Object.keys(migrations));
  });

  it('names every migration file of the folder', () => {
    const files = readdirSync(join(import.meta.dirname, '../../migrations'))
      .filter((name) => /^\d{4}_.*\.ts$/.test(name))
      .map((name) => name.slice(0, -'.ts'.length))
      .sort();
    expect(MIGRATION_NAMES).toEqual(files);
  });
});
