import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PANELS } from '../../src/ops/dashboard-layout.ts';

/**
 * `npm run docs:screenshots` photographs every page a user can open: its list of pictures
 * (SHOTS in scripts/docs-screenshots.ts, read as text: tests never import scripts/) names the
 * route of each, and must cover the dashboard's route table, its nav and the login form. A new
 * page without a picture fails here. docs/screenshots.md shows each picture, and
 * docs/screenshots/ holds no picture the script no longer makes.
 */
const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

const script = read('scripts/docs-screenshots.ts');
const shotsSource = script.slice(
  script.indexOf('const SHOTS'),
  script.indexOf('];', script.indexOf('const SHOTS')),
);
const shots = [...shotsSource.matchAll(/\{\s*file: '([a-z-]+)',\s*route: '([^']+)'/g)].map(
  ([, file, route]) => ({ file: file!, route: route! }),
);

describe('the pictures of the docs', () => {
  it('the script lists its pictures', () => {
    expect(shots.length).toBeGreaterThanOrEqual(10);
  });

  it("cover every page of the dashboard's route table, its nav and the login form", () => {
    const router = read('src/ops/dashboard-router.ts');
    const table = router.slice(
      router.indexOf('const pages'),
      router.indexOf('];', router.indexOf('const pages')),
    );
    const pages = [...table.matchAll(/\['(\/[^']*)',\s*\w+Page\]/g)].map(([, path]) => path!);
    expect(pages).toContain('/');
    expect(pages).toContain('/items/:id');
    const routes = new Set(shots.map((shot) => shot.route));
    const wanted = [...new Set([...pages, ...PANELS.map(([href]) => href), '/login'])];
    expect(wanted.filter((route) => !routes.has(route))).toEqual([]);
  });

  it('are each shown in docs/screenshots.md, and docs/screenshots/ holds only these', () => {
    const page = read('docs/screenshots.md');
    for (const { file } of shots) expect(page, file).toContain(`](screenshots/${file}.png)`);
    const files = readdirSync(resolve(root, 'docs/screenshots')).filter((name) =>
      name.endsWith('.png'),
    );
    expect(files.sort()).toEqual(shots.map((shot) => `${shot.file}.png`).sort());
  });
});
