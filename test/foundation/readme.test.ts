import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      heading!
        .toLowerCase()
        .replace(/`/g, '')
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

/** Every relative link of a Markdown file that does not reach its file (or its heading). */
function brokenLinks(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?:|mailto:)/.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
    if (!existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (
      anchor &&
      resolved.endsWith('.md') &&
      !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)
    ) {
      broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  return broken;
}

/** Issue 40.3: a README a newcomer reads, whose links reach what moved out of it. */
describe('README.md', () => {
  it('is at most 200 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('links to the configuration, the commands, the screenshots and CONTRIBUTING.md', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const target of [
      'docs/configuration.md',
      'docs/cli.md',
      'docs/screenshots.md',
      'docs/how-it-works.md',
      'CONTRIBUTING.md',
      '.env.example',
    ]) {
      expect(readme).toContain(`](${target})`);
    }
  });

  it('and every page of docs/ and CONTRIBUTING.md: each relative link reaches its file and heading', () => {
    const files = [
      'README.md',
      'CONTRIBUTING.md',
      ...readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});
