import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 41, "The tenant label": each tenant has one metrics handle (`tenantMetrics` in
 * src/metrics), made where its daemon is assembled and handed to the components, which move
 * their series through it. No component names the `tenant` label, and no option carries a
 * tenant only to label metrics. These checks read the production tree's syntax (TypeScript's
 * parser), so the hand-threaded label cannot come back under another name.
 */
const root = join(import.meta.dirname, '..', '..');
const PRODUCTION = ['src', 'jobs', 'bin'];
/** The one place a tenant's handle is made (and src/metrics, which defines it). */
const ASSEMBLY = 'src/daemon/create-daemon.ts';

/** prom-client's calls that move or drop a series. */
const MOVES = new Set([
  'inc',
  'dec',
  'set',
  'observe',
  'startTimer',
  'setToCurrentTime',
  'labels',
  'remove',
  'zero',
]);

interface Source {
  readonly file: string;
  readonly tree: ts.SourceFile;
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

const SOURCES: readonly Source[] = PRODUCTION.flatMap((folder) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort(),
).map((file) => ({ file, tree: parse(file, readFileSync(join(root, file), 'utf8')) }));

const outsideMetrics = (source: Source) => !source.file.startsWith('src/metrics/');

function everyNode(tree: ts.Node, visit: (node: ts.Node) => void): void {
  const walk = (node: ts.Node): void => {
    visit(node);
    ts.forEachChild(node, walk);
  };
  walk(tree);
}

function holdsTenantLiteral(node: ts.Node): boolean {
  let found = false;
  everyNode(node, (inner) => {
    if (ts.isStringLiteral(inner) && inner.text === 'tenant') found = true;
  });
  return found;
}

/**
 * The metrics a file declares with a `tenant` label: each top-level `const` whose initializer
 * names the label (`labelNames: ['kind', 'tenant']`), or calls a helper of the same file that
 * adds it (`counter(name, help, ['reason'])` appending `'tenant'`).
 */
export function tenantLabelledMetrics(tree: ts.SourceFile): string[] {
  const helpers = new Set<string>();
  for (const statement of tree.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && holdsTenantLiteral(statement)) {
      helpers.add(statement.name.text);
    }
  }
  const names: string[] = [];
  for (const statement of tree.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isIdentifier(declaration.name)) continue;
      let labelled = holdsTenantLiteral(init);
      everyNode(init, (inner) => {
        if (
          ts.isCallExpression(inner) &&
          ts.isIdentifier(inner.expression) &&
          helpers.has(inner.expression.text)
        ) {
          labelled = true;
        }
      });
      if (labelled) names.push(declaration.name.text);
    }
  }
  return names;
}

/** `metric.inc(…)` and the like on one of `metrics`, as `name.method` at `line`. */
export function directMoves(tree: ts.SourceFile, metrics: ReadonlySet<string>): string[] {
  const found: string[] = [];
  everyNode(tree, (node) => {
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
    const { expression: target, name } = node.expression;
    if (!MOVES.has(name.text) || !ts.isIdentifier(target) || !metrics.has(target.text)) return;
    const line = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1;
    found.push(`${target.text}.${name.text} (line ${line})`);
  });
  return found;
}

/** Members named `tenant` (interfaces, type literals, parameters) whose doc says it labels. */
export function tenantsForLabels(tree: ts.SourceFile): string[] {
  const found: string[] = [];
  everyNode(tree, (node) => {
    if (!(ts.isPropertySignature(node) || ts.isParameter(node) || ts.isPropertyDeclaration(node)))
      return;
    if (!node.name || !ts.isIdentifier(node.name) || node.name.text !== 'tenant') return;
    const doc = ts
      .getJSDocCommentsAndTags(node)
      .map((comment) => comment.getText(tree))
      .join(' ');
    // A parameter's doc is its function's: read the function's, too.
    const owner = ts.isParameter(node) ? node.parent : undefined;
    const ownerDoc = owner
      ? ts
          .getJSDocCommentsAndTags(owner)
          .map((comment) => comment.getText(tree))
          .join(' ')
      : '';
    if (/\blabel\b/i.test(doc) || /`tenant`[^.]*\blabel\b/i.test(ownerDoc)) {
      const line = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1;
      found.push(`tenant (line ${line})`);
    }
  });
  return found;
}

/** Calls of `tenantMetrics(…)`, the maker of a tenant's handle. */
function handleMakers(tree: ts.SourceFile): number {
  let count = 0;
  everyNode(tree, (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'tenantMetrics'
    ) {
      count += 1;
    }
  });
  return count;
}

function perFile(find: (source: Source) => readonly string[]): string[] {
  return SOURCES.filter(outsideMetrics).flatMap((source) =>
    find(source).map((what) => `${source.file}: ${what}`),
  );
}

const LABELLED = new Set(SOURCES.flatMap(({ tree }) => tenantLabelledMetrics(tree)));

describe('each tenant has one metrics handle (issue 41, "The tenant label")', () => {
  it('finds the metrics that carry a tenant label, wherever they are declared', () => {
    // Declared beside their components and in src/metrics: the checks below must see them all.
    for (const name of [
      'syncAttemptsTotal',
      'upstreamRequestDuration',
      'relayOldestPendingSeconds',
      'webhookOutcomes',
      'unclassifiedEventsTotal',
    ]) {
      expect(LABELLED, name).toContain(name);
    }
    expect(LABELLED).not.toContain('authThrottled');
  });

  it('no component moves a series with a tenant label itself: it goes through the handle', () => {
    expect(perFile(({ tree }) => directMoves(tree, LABELLED))).toEqual([]);
  });

  it('src/metrics hands out no tenant label, only the handle', () => {
    const index = SOURCES.find(({ file }) => file === 'src/metrics/index.ts')!;
    const exported: string[] = [];
    everyNode(index.tree, (node) => {
      if (ts.isExportSpecifier(node)) exported.push(node.name.text);
    });
    expect(exported.filter((name) => /label/i.test(name))).toEqual([]);
    expect(exported).toContain('tenantMetrics');
  });

  it(`the handle is made once per daemon, where it is assembled (${ASSEMBLY})`, () => {
    const makers = SOURCES.filter(outsideMetrics)
      .filter(({ tree }) => handleMakers(tree) > 0)
      .map(({ file, tree }) => `${file}: ${handleMakers(tree)}`);
    expect(makers).toEqual([`${ASSEMBLY}: 1`]);
  });

  it('no option or parameter carries a tenant to label metrics (the handle does)', () => {
    const found = perFile(({ file, tree }) => (file === ASSEMBLY ? [] : tenantsForLabels(tree)));
    expect(found).toEqual([]);
  });

  it.each([
    ['syncAttemptsTotal.inc({ kind, ...tenantLabel(deps.tenant) });', 1],
    ['syncAttemptsTotal.inc({ kind, tenant });', 1],
    ['const stop = syncAttemptsTotal.startTimer(labels);', 1],
    ['deps.metrics.inc(syncAttemptsTotal, { kind });', 0],
    ['authThrottled.inc({ surface });', 0],
  ])('sees a direct move in `%s`', (code, expected) => {
    expect(directMoves(parse('example.ts', code), LABELLED)).toHaveLength(expected);
  });

  it.each([
    ['interface A {\n  /** Its series carry it as a `tenant` label. */\n  tenant?: string;\n}', 1],
    [
      '/** `tenant` names the tenant: the count carries it as a `tenant` label. */\nfunction f(tenant?: string) {}',
      1,
    ],
    ['interface A {\n  /** Named in the spans. */\n  tenant?: string;\n}', 0],
  ])('sees a tenant threaded for labels in `%s`', (code, expected) => {
    expect(tenantsForLabels(parse('example.ts', code))).toHaveLength(expected);
  });
});
