import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 20: the small shared words have one home each. The executor type lives in src/db; the
 * resource kinds, id prefixes and refund kinds in src/resources; currency exponents in
 * src/money; the number mask in src/alerts. These checks read the production tree's syntax
 * (TypeScript's parser, not a regex), so a second home fails the suite whatever it is named.
 */
const root = join(import.meta.dirname, '..', '..');
const PRODUCTION = ['src', 'jobs', 'bin'];

interface Source {
  readonly file: string;
  readonly tree: ts.SourceFile;
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
}

const PRODUCTION_FILES = PRODUCTION.flatMap((folder) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort(),
);

function productionSources(): Source[] {
  return PRODUCTION_FILES.map((file) => ({
    file,
    tree: parse(file, readFileSync(join(root, file), 'utf8')),
  }));
}

function everyNode(tree: ts.SourceFile, visit: (node: ts.Node) => void): void {
  const walk = (node: ts.Node): void => {
    visit(node);
    ts.forEachChild(node, walk);
  };
  walk(tree);
}

/** kysely's types that a repository takes as its executor. */
const KYSELY_EXECUTOR_TYPES = new Set(['Kysely', 'Transaction', 'ControlledTransaction']);

/**
 * The type aliases and interfaces in a file that stand for the executor: any alias whose type
 * is (or is a union or intersection holding) kysely's database or transaction type, however it
 * was imported (renamed, or through a namespace), or db's own `Executor` under another name.
 */
export function executorAliases(tree: ts.SourceFile): string[] {
  const executorNames = new Set<string>();
  const kyselyNamespaces = new Set<string>();
  for (const statement of tree.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) {
      continue;
    }
    const fromKysely = statement.moduleSpecifier.text === 'kysely';
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && fromKysely) {
      kyselyNamespaces.add(bindings.name.text);
    }
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if ((fromKysely && KYSELY_EXECUTOR_TYPES.has(imported)) || imported === 'Executor') {
          executorNames.add(element.name.text);
        }
      }
    }
  }
  const namesExecutor = (name: ts.EntityName | ts.Expression): boolean => {
    if (ts.isIdentifier(name)) return executorNames.has(name.text);
    const [left, right] = ts.isQualifiedName(name)
      ? [name.left, name.right]
      : ts.isPropertyAccessExpression(name)
        ? [name.expression, name.name]
        : [undefined, undefined];
    return (
      left !== undefined &&
      ts.isIdentifier(left) &&
      kyselyNamespaces.has(left.text) &&
      KYSELY_EXECUTOR_TYPES.has(right.text)
    );
  };
  const isExecutorType = (type: ts.TypeNode): boolean => {
    if (ts.isParenthesizedTypeNode(type)) return isExecutorType(type.type);
    if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type)) {
      return type.types.some(isExecutorType);
    }
    return ts.isTypeReferenceNode(type) && namesExecutor(type.typeName);
  };
  const found: string[] = [];
  everyNode(tree, (node) => {
    if (ts.isTypeAliasDeclaration(node) && isExecutorType(node.type)) found.push(node.name.text);
    if (
      ts.isInterfaceDeclaration(node) &&
      node.heritageClauses?.some((clause) => clause.types.some((t) => namesExecutor(t.expression)))
    ) {
      found.push(node.name.text);
    }
  });
  return found;
}

/** The names a file declares: functions, classes, types, interfaces and variables. */
function declaredNames(tree: ts.SourceFile): string[] {
  const names: string[] = [];
  everyNode(tree, (node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isVariableDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      names.push(node.name.text);
    }
  });
  return names;
}

/** The names a file exports again from elsewhere (`export { X }`, `export type { X } from`). */
function reExportedNames(tree: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of tree.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause) {
      if (ts.isNamedExports(statement.exportClause)) {
        names.push(...statement.exportClause.elements.map((element) => element.name.text));
      }
    }
  }
  return names;
}

/**
 * Bare documented id prefixes (`'pi_'`, `"tr_"`, `` `pl_` ``, or `pi_` as a property name):
 * the mark of a prefix → kind mapping.
 */
function idPrefixes(tree: ts.SourceFile): string[] {
  const found: string[] = [];
  everyNode(tree, (node) => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)
          ? node.name.text
          : undefined;
    if (text !== undefined && /^(pi|tr|pl)_$/.test(text)) found.push(text);
  });
  return found;
}

/** The mask's glyph (src/alerts/mask-number.ts): `•`, as a fill to repeat or a run of them. */
const MASK_GLYPHS = /^•+$/;

/** A name that says it masks a number: maskCounterparty, hidePhone, redactDigits, obscureIban… */
const NUMBER_MASK_NAME =
  /(mask|hide|redact|obscure|obfuscate).*(number|counterparty|phone|digit|msisdn|iban|account)/i;

/**
 * The marks of a number-masking rule in a file: the mask's glyph as a literal of its own (what a
 * rule repeats or pads with: `'•'.repeat(n)`, `'••••' + last4`), and functions whose name says
 * they mask a number. A bullet in a sentence (`• ${line}`) is text, not a mask.
 */
export function numberMasks(tree: ts.SourceFile): string[] {
  const found: string[] = [];
  everyNode(tree, (node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      MASK_GLYPHS.test(node.text)
    ) {
      found.push(`'${node.text}'`);
    }
    const name =
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
        ? node.name.text
        : ts.isVariableDeclaration(node) &&
            ts.isIdentifier(node.name) &&
            node.initializer &&
            (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
          ? node.name.text
          : undefined;
    if (name !== undefined && NUMBER_MASK_NAME.test(name)) found.push(`${name}()`);
  });
  return found;
}

interface Facts {
  readonly file: string;
  readonly executorAliases: readonly string[];
  readonly declared: readonly string[];
  readonly reExported: readonly string[];
  readonly idPrefixes: readonly string[];
  readonly numberMasks: readonly string[];
}

const facts: readonly Facts[] = productionSources().map(({ file, tree }) => ({
  file,
  executorAliases: executorAliases(tree),
  declared: declaredNames(tree),
  reExported: reExportedNames(tree),
  idPrefixes: idPrefixes(tree),
  numberMasks: numberMasks(tree),
}));

function filesWhere(test: (fact: Facts) => boolean): string[] {
  return facts.filter(test).map(({ file }) => file);
}

describe('the executor type has one home, src/db (any alias of a kysely database or transaction)', () => {
  it('is declared only in src/db/executor.ts', () => {
    expect(facts.length).toBeGreaterThan(300);
    const aliases = facts.flatMap(({ file, executorAliases }) =>
      executorAliases.map((name) => `${file}: ${name}`),
    );
    expect(aliases).toEqual(['src/db/executor.ts: Executor']);
  });

  it.each([
    [
      'a union of both, under another name',
      "import type { Kysely, Transaction } from 'kysely';\nexport type OutboxExecutor = Kysely<Database> | Transaction<Database>;",
      ['OutboxExecutor'],
    ],
    [
      'one of them, renamed on import',
      "import { type Transaction as Tx } from 'kysely';\ntype Trx = (Tx<Database>);",
      ['Trx'],
    ],
    [
      'through a namespace import, generic',
      "import type * as k from 'kysely';\ntype Db<T> = k.Kysely<T>;",
      ['Db'],
    ],
    [
      'an interface extending it',
      "import { Kysely } from 'kysely';\ninterface Db extends Kysely<Database> {}",
      ['Db'],
    ],
    [
      "db's Executor under a second name",
      "import type { Executor } from '../db/index.ts';\nexport type AlertExecutor = Executor;",
      ['AlertExecutor'],
    ],
    [
      'not a field that holds one, nor a look-alike from elsewhere',
      "import type { Kysely } from 'kysely';\nimport type { Transaction } from './bank.ts';\ntype Options = { db: Kysely<Database> };\ntype Payment = Transaction;",
      [],
    ],
  ])('the check finds %s', (_what, code, expected) => {
    expect(executorAliases(parse('example.ts', code))).toEqual(expected);
  });
});

describe('the small shared words have one home each', () => {
  it.each([
    ['RefundKind', ['src/resources/refund-kind.ts']],
    ['isRefundKind', ['src/resources/refund-kind.ts']],
    ['ResourceKind', ['src/resources/resource-kind.ts']],
    ['ObservedVia', ['src/resources/observed-via.ts']],
    ['kindOfId', ['src/resources/kind-of-id.ts']],
    ['currencyExponent', ['src/money/currency-exponent.ts']],
    ['decimalAmount', ['src/money/decimal-amount.ts']],
    ['maskNumber', ['src/alerts/mask-number.ts']],
    ['isPostgres', []],
  ])('%s is declared only in %j', (name, homes) => {
    expect(filesWhere(({ declared }) => declared.includes(name))).toEqual(homes);
  });

  it('exports the resource words only from src/resources (no second import path)', () => {
    for (const word of ['ResourceKind', 'ObservedVia', 'RefundKind', 'kindOfId']) {
      expect(filesWhere(({ reExported }) => reExported.includes(word))).toEqual([
        'src/resources/index.ts',
      ]);
    }
  });

  it('maps id prefixes to kinds only in src/resources (the simulator mints ids of its own)', () => {
    const outside = filesWhere(({ idPrefixes }) => idPrefixes.length > 0).filter(
      (file) => !file.startsWith('src/sim/'),
    );
    expect(outside).toEqual(['src/resources/kind-of-id.ts']);
  });

  it("tells the dialect only in src/db (dialectOfDb), by kysely's PostgresAdapter", () => {
    const files = PRODUCTION_FILES.filter((file) =>
      /\binstanceof\s+PostgresAdapter\b/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(files).toEqual(['src/db/dialect-of-db.ts']);
  });
});

describe('numbers are masked by one policy, src/alerts/mask-number.ts (issue 41)', () => {
  it('no other production file holds a masking rule: its glyph or a function named for one', () => {
    const elsewhere = facts
      .filter(({ file }) => file !== 'src/alerts/mask-number.ts')
      .flatMap(({ file, numberMasks }) => numberMasks.map((mark) => `${file}: ${mark}`));
    expect(elsewhere).toEqual([]);
    expect(filesWhere(({ numberMasks }) => numberMasks.length > 0)).toEqual([
      'src/alerts/mask-number.ts',
    ]);
  });

  it.each([
    [
      'the second rule issue 41 removed (last 4 characters)',
      "export function maskCounterparty(c: string): string {\n  return `${'•'.repeat(Math.min(c.length - 4, 8))}${c.slice(-4)}`;\n}",
      ['maskCounterparty()', "'•'"],
    ],
    ['a padded literal', "const shown = '••••' + value.slice(-4);", ["'••••'"]],
    [
      'an arrow function named for it, with another fill',
      "const hidePhone = (n: string) => n.slice(0, 3) + '*'.repeat(n.length - 3);",
      ['hidePhone()'],
    ],
    [
      'not a bullet in a sentence, nor a function that applies the policy to a view',
      'const line = `• ${title}`;\nfunction maskResourceView(view: View): View { return view; }',
      [],
    ],
  ])('the check finds %s', (_what, code, expected) => {
    expect(numberMasks(parse('example.ts', code))).toEqual(expected);
  });
});

/** A value written as constants: numbers, strings, and arrays of them. */
type Constant = number | string | readonly Constant[];

const DURATION_UNITS_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `0s,5s,5m` → [0, 5000, 300000]: a duration list as PAYSYNC_* variables write it. */
function durationList(text: string): number[] | undefined {
  const parts = text.split(',').map((part) => /^\s*(\d+)\s*(s|m|h|d)\s*$/.exec(part));
  if (parts.length < 2 || parts.some((match) => !match)) return undefined;
  return parts.map((match) => Number(match![1]) * DURATION_UNITS_MS[match![2]!]!);
}

/** The file's top-level `const NAME = …` initializers, by name. */
function fileConstants(tree: ts.SourceFile): Map<string, ts.Expression> {
  const found = new Map<string, ts.Expression>();
  for (const statement of tree.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) {
        found.set(declaration.name.text, declaration.initializer);
      }
    }
  }
  return found;
}

/**
 * What an expression comes to when it is written with constants only (`100`, `50 * 2`,
 * `[0, 5 * SECOND]`, `Object.freeze([…])`, a file-level const of those), else undefined.
 */
function evaluate(
  node: ts.Node,
  constants: Map<string, ts.Expression>,
  seen: ReadonlySet<string> = new Set(),
): Constant | undefined {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node)
  ) {
    return evaluate(node.expression, constants, seen);
  }
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const value = evaluate(node.operand, constants, seen);
    return typeof value === 'number' ? -value : undefined;
  }
  if (ts.isBinaryExpression(node)) {
    const left = evaluate(node.left, constants, seen);
    const right = evaluate(node.right, constants, seen);
    if (typeof left !== 'number' || typeof right !== 'number') return undefined;
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.AsteriskToken:
        return left * right;
      case ts.SyntaxKind.PlusToken:
        return left + right;
      case ts.SyntaxKind.MinusToken:
        return left - right;
      default:
        return undefined;
    }
  }
  if (ts.isIdentifier(node)) {
    const initializer = constants.get(node.text);
    if (!initializer || seen.has(node.text)) return undefined;
    return evaluate(initializer, constants, new Set([...seen, node.text]));
  }
  if (ts.isArrayLiteralExpression(node)) {
    const values = node.elements.map((element) => evaluate(element, constants, seen));
    return values.every((value) => value !== undefined) ? (values as Constant[]) : undefined;
  }
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    ts.isIdentifier(node.expression.expression) &&
    node.expression.expression.text === 'Object' &&
    node.expression.name.text === 'freeze' &&
    node.arguments.length === 1
  ) {
    return evaluate(node.arguments[0]!, constants, seen);
  }
  return undefined;
}

function sameValue(value: Constant | undefined, wanted: Constant): boolean {
  if (value === undefined) return false;
  if (typeof value === 'string' && Array.isArray(wanted)) {
    const list = durationList(value);
    return list !== undefined && sameValue(list, wanted);
  }
  return JSON.stringify(value) === JSON.stringify(wanted);
}

/** The lines of a file that write `wanted` with constants (a literal, an array, a duration list). */
export function copiesOf(tree: ts.SourceFile, wanted: Constant): number[] {
  const constants = fileConstants(tree);
  const lines = new Set<number>();
  everyNode(tree, (node) => {
    if (ts.isIdentifier(node)) return;
    if (!ts.isExpression(node)) return;
    if (sameValue(evaluate(node, constants), wanted)) {
      lines.add(tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1);
    }
  });
  return [...lines];
}

/**
 * Issue 41: a default that both the configuration and its component need is written once, in
 * the component's leaf `*.defaults.ts`; the configuration imports it from there (CONTRIBUTING.md,
 * "The configuration lives in src/config/"), and no file where the setting is declared or used
 * writes its value a second time, however it is written.
 */
const ONE_DEFAULT = [
  {
    constant: 'DEFAULT_SYNC_BATCH_SIZE',
    home: 'src/queues/sync-batch.defaults.ts',
    config: 'src/config/processing.ts',
    value: 100,
    // Where the sync batch's size is declared, merged or used.
    scope: (file: string) =>
      file.startsWith('src/queues/') ||
      file === 'src/config/processing.ts' ||
      file === 'jobs/sync-batch.job.ts' ||
      /^src\/reconcile\/sync-batch/.test(file),
  },
  {
    constant: 'DEFAULT_OUTBOX_BATCH_SIZE',
    home: 'src/outbox/outbox.defaults.ts',
    config: 'src/config/processing.ts',
    value: 100,
    scope: (file: string) => file.startsWith('src/outbox/') || file === 'src/config/processing.ts',
  },
  {
    constant: 'RETRY_SCHEDULE_MS',
    home: 'src/relay/retry-schedule.defaults.ts',
    config: 'src/config/relay.ts',
    value: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    // A list of eight waits is unmistakable anywhere.
    scope: () => true,
  },
];

const PRODUCTION_TREES = new Map(productionSources().map(({ file, tree }) => [file, tree]));

describe('each default is declared once, where its setting is declared', () => {
  it.each(ONE_DEFAULT)('$constant is declared only in $home', ({ constant, home }) => {
    expect(filesWhere(({ declared }) => declared.includes(constant))).toEqual([home]);
  });

  it.each(ONE_DEFAULT)('$config reads $constant from $home', ({ constant, home, config }) => {
    const tree = PRODUCTION_TREES.get(config)!;
    const imported = tree.statements.some(
      (statement) =>
        ts.isImportDeclaration(statement) &&
        ts.isStringLiteral(statement.moduleSpecifier) &&
        join('src/config', statement.moduleSpecifier.text) === home &&
        statement.importClause?.namedBindings !== undefined &&
        ts.isNamedImports(statement.importClause.namedBindings) &&
        statement.importClause.namedBindings.elements.some(
          (element) => (element.propertyName ?? element.name).text === constant,
        ),
    );
    expect(imported).toBe(true);
  });

  it.each(ONE_DEFAULT)(
    "$constant's value is written only in $home",
    ({ constant, home, value, scope }) => {
      const written = [...PRODUCTION_TREES]
        .filter(([file]) => scope(file))
        .flatMap(([file, tree]) => copiesOf(tree, value).map((line) => `${file}:${line}`));
      expect(
        written.map((at) => at.split(':')[0]),
        `${constant} written at ${written.join(', ')}`,
      ).toEqual([home]);
    },
  );

  it.each([
    ['a literal', 'export const PAYSYNC_SYNC_BATCH_SIZE = positiveInt(100, 1000);', 100, [1]],
    ['a product of literals', 'const size = options.batchSize ?? 50 * 2;', 100, [1]],
    [
      'a duration list',
      "const DEFAULT_RETRY_SCHEDULE = '0s,5s,5m,30m,2h,5h,10h,10h';",
      ONE_DEFAULT[2]!.value,
      [1],
    ],
    [
      'an array of named units',
      'const S = 1000;\nconst M = 60 * S;\nconst H = 60 * M;\nexport const WAITS = Object.freeze([\n  0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H,\n]);',
      ONE_DEFAULT[2]!.value,
      [4],
    ],
    [
      'not the constant read by name, nor another value',
      'const size = options.batchSize ?? DEFAULT_SYNC_BATCH_SIZE;\nconst max = 1000;',
      100,
      [],
    ],
  ])('the check finds %s', (_what, code, value, lines) => {
    expect(copiesOf(parse('example.ts', code), value)).toEqual(lines);
  });
});

/** Names declared in `tree` (functions, variables, classes, types, methods, properties) matching `word`. */
function namesWith(tree: ts.SourceFile, word: RegExp): string[] {
  const found: string[] = [];
  everyNode(tree, (node) => {
    const name = (node as { name?: ts.Node }).name;
    if (
      name &&
      ts.isIdentifier(name) &&
      word.test(name.text) &&
      (ts.isFunctionDeclaration(node) ||
        ts.isVariableDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isPropertyAssignment(node) ||
        ts.isPropertySignature(node))
    ) {
      found.push(name.text);
    }
  });
  return found;
}

describe('"replay" names one thing, src/replay: inbox events run again (issue 41)', () => {
  // What the relay sends again to a merchant's endpoint is a redelivery (src/relay,
  // `paysync endpoints redeliver`); only the old route's name stays, as a deprecated alias.
  const ALIASES = new Set(['src/ops/endpoints-api.ts replayToEndpoint']);
  it('no file of the relay, and no name declared in it or in the ops API of endpoints, says replay', () => {
    const named = productionSources()
      .filter(({ file }) => file.startsWith('src/relay/') || file === 'src/ops/endpoints-api.ts')
      .flatMap(({ file, tree }) => [
        ...(/replay/i.test(file) ? [file] : []),
        ...namesWith(tree, /replay/i)
          .map((name) => `${file} ${name}`)
          .filter((entry) => !ALIASES.has(entry)),
      ]);
    expect(named).toEqual([]);
  });

  it('the check finds a relay function named for replay', () => {
    const tree = parse('src/relay/x.ts', 'export async function replayEvents() {}\nconst ok = 1;');
    expect(namesWith(tree, /replay/i)).toEqual(['replayEvents']);
  });
});
