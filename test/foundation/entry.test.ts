import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript, on purpose: bin/ runs before any TypeScript loader
import { chooseEntry } from '../../bin/entry.js';

const choose = chooseEntry as (root: string, env?: Record<string, string>) => 'dist' | 'sources';

/** A project folder with one source file and, optionally, a build stamped at `builtAt`. */
function project(builtAt: Date | undefined, sourceAt: Date): string {
  const root = mkdtempSync(join(tmpdir(), 'paysync-entry-'));
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), '');
  utimesSync(join(root, 'src', 'cli', 'main.ts'), sourceAt, sourceAt);
  if (builtAt) {
    mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'src', 'cli', 'main.js'), '');
    writeFileSync(join(root, 'dist', '.build-stamp'), '');
    utimesSync(join(root, 'dist', '.build-stamp'), builtAt, builtAt);
  }
  return root;
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('which code bin/paysync.js runs', () => {
  const earlier = new Date('2026-11-24T10:00:00Z');
  const later = new Date('2026-11-24T11:00:00Z');

  it('runs the compiled dist/ when it is newer than every source', () => {
    roots.push(project(later, earlier));
    expect(choose(roots[0]!, {})).toBe('dist');
  });

  it('runs the sources when one was edited after the build, so a stale build never shadows it', () => {
    roots.push(project(earlier, later));
    expect(choose(roots[0]!, {})).toBe('sources');
  });

  it('runs the sources with no build, or when PAYSYNC_RUN_SOURCES=1', () => {
    roots.push(project(undefined, earlier), project(later, earlier));
    expect(choose(roots[0]!, {})).toBe('sources');
    expect(choose(roots[1]!, { PAYSYNC_RUN_SOURCES: '1' })).toBe('sources');
  });
});
