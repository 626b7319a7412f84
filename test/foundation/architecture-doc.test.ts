import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md draws the layers that .dependency-cruiser.cjs enforces (issue 20.3): the
 * page's table and the rules' LAYERS list must say the same thing, and every folder or single
 * file under src/ must have a layer.
 */
const root = join(import.meta.dirname, '..', '..');

interface Layer {
  readonly name: string;
  readonly components: readonly string[];
}

const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
  readonly layers: readonly Layer[];
};

function documentedLayers(): Layer[] {
  const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  const table = page.slice(page.indexOf('| Layer'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  return rows.map((row) => {
    const [name = '', components = ''] = row.split('|').slice(1, 3);
    return {
      name: name.trim(),
      components: [...components.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, '')),
    };
  });
}

describe('docs/architecture.md and the layer rules', () => {
  it('lists the same layers, in the same order, with the same components', () => {
    expect(documentedLayers()).toEqual(config.layers.map((l) => ({ ...l })));
  });

  it('gives every folder and single file of src/ a layer', () => {
    const layered = new Set(config.layers.flatMap((l) => l.components));
    const components = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
      .map((entry) => entry.name.replace(/\.ts$/, ''));
    expect(components.filter((c) => !layered.has(c))).toEqual([]);
  });
});
