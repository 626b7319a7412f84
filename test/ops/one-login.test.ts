import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 41: the dashboards have one login. The one set of books' dashboard (dashboard-router.ts)
 * and the front of a process serving several tenants (tenants-dashboard.ts) both take it from
 * src/ops/dashboard-login.ts, parameterised by the tenants a token may see. These checks read
 * the production tree's syntax (string literals and calls, not comments), so a second login
 * written anywhere fails the suite, and dashboard-router.ts stays small enough to read.
 */
const root = join(import.meta.dirname, '..', '..');
const LOGIN = 'src/ops/dashboard-login.ts';
const ROUTER_MAX_LINES = 250;

const PRODUCTION_FILES = ['src', 'jobs', 'bin'].flatMap((folder) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort(),
);

/** Every string (literal or piece of a template) and every call's callee name, per file. */
function syntaxOf(file: string): { strings: string[]; calls: { name: string; first?: string }[] } {
  const text = readFileSync(join(root, file), 'utf8');
  const tree = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const strings: string[] = [];
  const calls: { name: string; first?: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      strings.push(node.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      const [first] = node.arguments;
      calls.push({
        name,
        ...(first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))
          ? { first: first.text }
          : {}),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return { strings, calls };
}

const SYNTAX = PRODUCTION_FILES.map((file) => ({ file, ...syntaxOf(file) }));

function filesWhere(test: (syntax: (typeof SYNTAX)[number]) => boolean): string[] {
  return SYNTAX.filter(test).map((syntax) => syntax.file);
}

describe('one login for the dashboards', () => {
  it(`dashboard-router.ts has at most ${ROUTER_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(root, 'src/ops/dashboard-router.ts'), 'utf8')
      .replace(/\n$/, '')
      .split('\n').length;
    expect(lines).toBeLessThanOrEqual(ROUTER_MAX_LINES);
  });

  it('only the login module sets a cookie', () => {
    expect(filesWhere((s) => s.strings.some((text) => /set-cookie/i.test(text)))).toEqual([LOGIN]);
    expect(
      filesWhere((s) => s.calls.some((call) => ['cookie', 'clearCookie'].includes(call.name))),
    ).toEqual([]);
  });

  it('only the login module names the session cookie or reads it', () => {
    // `paysync_ops_refused_total` (a metric) is another word.
    expect(filesWhere((s) => s.strings.some((text) => /paysync_ops(?!_)/.test(text)))).toEqual([
      LOGIN,
    ]);
    expect(
      filesWhere((s) =>
        s.calls.some((call) => ['sessionCookieName', 'cookieValue'].includes(call.name)),
      ),
    ).toEqual([LOGIN]);
  });

  it('only the login module answers /login and /logout', () => {
    expect(
      filesWhere((s) =>
        s.calls.some(
          (call) =>
            ['get', 'post', 'all', 'use'].includes(call.name) &&
            (call.first === '/login' || call.first === '/logout'),
        ),
      ),
    ).toEqual([LOGIN]);
  });
});
