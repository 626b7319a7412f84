import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * Errors are data until a door words them (issue 41 item 2; STYLE 14): the ESLint rule
 * `domain-errors/no-cli-words` refuses a CLI flag in an error of the domain outside src/cli, and
 * a message rewritten with a regular expression in src/ops. The snippets are the shapes the old
 * code had (src/relay/endpoint-url.ts, manage-endpoints.ts, redeliver-events.ts,
 * src/expectations/resolve-expectation.ts, src/exports/close-period.ts, src/ops/endpoints-api.ts,
 * src/ops/expectations-api.ts), each of which the rule reported.
 */
const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function problems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages
    .filter((m) => m.ruleId === 'domain-errors/no-cli-words')
    .map((m) => m.messageId!);
}

const flagged: [string, string][] = [
  [
    'src/relay/manage-endpoints.ts',
    "export function f(p: string) { throw new EndpointError('bad_pattern', `--events: ${p}`); }",
  ],
  [
    'src/relay/redeliver-events.ts',
    'export function f(id: string) { throw new EndpointError(`--event: no event ${id}`); }',
  ],
  [
    'src/expectations/resolve-expectation.ts',
    "export function f() { throw new ExpectationError('bad_input', 'say who resolves it (--by <name>)'); }",
  ],
  [
    'src/exports/close-period.ts',
    "export function f() { throw new PeriodError('reason_required', '--force needs --reason \"…\"'); }",
  ],
  [
    'src/relay/endpoint-url.ts',
    "export function endpointUrlProblem(url: string): string | undefined { return url ? undefined : '--url must not have a #fragment'; }",
  ],
  // A flag pieced together is still a flag.
  ['src/exports/close-period.ts', "export function f() { throw new Error(`${'--'}force`); }"],
  ['src/relay/x.ts', 'export function f(flag: string) { throw new Error(`use --${flag}`); }'],
  ['src/polling/x.ts', "export const e = new RangeError('backfill: --from after --to');"],
];

describe('the no-cli-words rule', () => {
  it.each(flagged)('refuses a CLI flag in an error of the domain in %s', async (file, code) => {
    expect(await problems(code, file)).toEqual(['flag']);
  });

  it('lets the CLI name its flags', async () => {
    for (const [, code] of flagged) {
      expect(await problems(code, 'src/cli/commands/endpoints.command.ts'), code).toEqual([]);
    }
  });

  it('allows a typed refusal, and dashes that are no flag in an error', async () => {
    const code = [
      "export function f(id: string) { throw new EndpointError({ code: 'endpoint_not_found', endpointId: id }); }",
      "export function g() { throw new Error('a range such as 2026-11-01 -- 2026-11-30 is not a flag'); }",
      // A flag given to a program paysync starts is no error message.
      "export const args = ['--port', '6379', '--save', ''];",
    ].join('\n');
    expect(await problems(code, 'src/relay/manage-endpoints.ts')).toEqual([]);
  });

  it('refuses rewriting an error message with a regular expression in src/ops', async () => {
    const rewrites = [
      'export const m = (error: Error) => error.message.replace(/^--[a-z]+\\b/, (flag) => flag.slice(2));',
      "export const m = (message: string) => message.replace(/ \\(--by <name>\\)/, ' (by)');",
      "export const m = (text: string) => text.replace(/--url/, 'url');",
    ];
    for (const code of rewrites) {
      expect(await problems(code, 'src/ops/endpoints-api.ts'), code).toEqual(['rewrite']);
    }
    // Escaping a page's text is no rewriting of an error.
    const escape = "export const e = (value: string) => value.replace(/[&<>]/g, '');";
    expect(await problems(escape, 'src/ops/html.ts')).toEqual([]);
  });
});
