import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noOnly = {
  selector:
    "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='only']",
  message: '.only must not be committed: CI would silently skip the rest of the suite.',
};

// Every table has an owner: the component whose folder alone names it (DESIGN.md, Layout); everyone
// else calls the owner's index.ts. One entry per table of src/db/database.ts. A second folder is
// an exception whose reason is given beside it. Import boundaries live in .dependency-cruiser.cjs.
const TABLE_OWNERS = {
  webhook_inbox: ['src/inbox'],
  // The receipts' backfill anti-joins the mirror with the receipts in one statement: the ledger's
  // finalItemsWithout names the mirror and takes the receipts' half as a subquery.
  payment_intents: ['src/ledger'],
  transfers: ['src/ledger'],
  refunds: ['src/ledger'],
  status_history: ['src/ledger'],
  journals: ['src/ledger'],
  journal_lines: ['src/ledger'],
  ledger_day_totals: ['src/ledger'],
  discrepancies: ['src/ledger'],
  mirror_polls: ['src/ledger'],
  ledger_adjustments: ['src/ledger'],
  late_changes: ['src/ledger'],
  // The ledger owns "this month is closed" and the log of its closes and reopens;
  // `paysync close`/`reopen` (src/exports) write both through the ledger's index.ts.
  closed_periods: ['src/ledger'],
  period_events: ['src/ledger'],
  service_state: ['src/service-state'],
  balance_snapshots: [
    'src/balances',
    // src/balances imports src/reports (books days): reading the snapshots through its index
    // would close an import cycle.
    'src/reports',
  ],
  low_balance_state: ['src/balances'],
  daily_verdicts: ['src/reports'],
  outbox: ['src/outbox'],
  receipts: ['src/receipts'],
  // Moves to src/runs with the scheduled-run records.
  scheduled_runs: ['src/runs'],
  polling_checkpoints: ['src/polling'],
  alerts: ['src/alerts'],
  alert_deliveries: ['src/alerts'],
  alert_digests: ['src/alerts'],
  audit_runs: ['src/audit'],
  relay_events: ['src/relay'],
  relay_endpoints: ['src/relay'],
  relay_deliveries: ['src/relay'],
  relay_attempts: ['src/relay'],
  expectations: ['src/expectations'],
  expectation_history: ['src/expectations'],
  expectation_matches: ['src/expectations'],
  expectation_breaks: ['src/expectations'],
};

// Folders that name every table on purpose: the auditor judges the books from the tables
// themselves, independently of the code that wrote them; src/db gathers the table types into
// the one Database interface.
const READ_EVERY_TABLE = ['src/audit', 'src/db'];

const KYSELY_TABLE_CALLS =
  '/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|with)$/';

/**
 * The selectors that find `table` named in code. A name with an underscore is found anywhere (a
 * string, a template, an identifier). A plain word (`transfers`, `alerts`) is also a CLI word, a
 * route and a variable name, so it is found where it is used as a table: a kysely table argument,
 * a qualified column (`receipts.id`) and SQL text (`from receipts`).
 */
function tableSelectors(table) {
  const owners = TABLE_OWNERS[table];
  const message = `only ${owners.join(' and ')} ${owners.length === 1 ? 'names' : 'name'} ${table}: add a query there and call it through its index.ts (eslint.config.mjs, TABLE_OWNERS)`;
  const sqlText = `/\\b(from|join|into|update|FROM|JOIN|INTO|UPDATE)\\s+${table}\\b/`;
  if (table.includes('_')) {
    return [
      { selector: `Literal[value=/\\b${table}\\b/]`, message },
      { selector: `TemplateElement[value.raw=/\\b${table}\\b/]`, message },
      { selector: `Identifier[name='${table}']`, message },
    ];
  }
  return [
    {
      selector: `CallExpression[callee.property.name=${KYSELY_TABLE_CALLS}] > Literal[value=/^${table}( as \\w+)?$/]`,
      message,
    },
    { selector: `Literal[value=/^${table}\\.\\w+$/]`, message },
    { selector: `Literal[value=${sqlText}]`, message },
    { selector: `TemplateElement[value.raw=${sqlText}]`, message },
  ];
}

/** Per source folder, the tables it may not name. */
function tablesOwnedElsewhere(folder) {
  return Object.keys(TABLE_OWNERS).filter((table) => !TABLE_OWNERS[table].includes(folder));
}

const SOURCE_FOLDERS = [...new Set(Object.values(TABLE_OWNERS).flat().concat(READ_EVERY_TABLE))];

/**
 * One block for code outside every owning folder, and one per owning folder that forbids the
 * tables it does not own. no-restricted-syntax takes the last block's list, so each block
 * repeats noOnly.
 */
const tableOwnerBlocks = [
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'bin/**/*.js'],
    ignores: SOURCE_FOLDERS.map((folder) => `${folder}/**`),
    rules: {
      'no-restricted-syntax': [
        'error',
        noOnly,
        ...Object.keys(TABLE_OWNERS).flatMap(tableSelectors),
      ],
    },
  },
  ...SOURCE_FOLDERS.filter((folder) => !READ_EVERY_TABLE.includes(folder)).map((folder) => ({
    files: [`${folder}/**/*.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        noOnly,
        ...tablesOwnedElsewhere(folder).flatMap(tableSelectors),
      ],
    },
  })),
];

// One clock (issue 20; STYLE 12): the clock is chosen where a process is assembled (src/daemon,
// the CLI context src/cli/context.ts, the simulator src/sim, the demo src/demo) and passed down
// as `now: Clock`. Anywhere else, `new Date()` with no argument or `Date.now()` as a default
// (`x = Date.now()`, `x ?? Date.now()`) is a second home for it. What counts as the clock:
// every time written to the books, the inbox, the outbox, alerts and run records, "today" for
// a books day, and a signature's timestamp (signing, or the tolerance check of a webhook).
// What does not: parsing (`new Date(text)`) and measuring elapsed time (`Date.now()` or
// `performance.now()` differences for a timeout, a deadline, a cache age or a metric's
// duration), which stay allowed. Its own rule, so that it composes with the
// no-restricted-syntax blocks above.
const clockMessage =
  'the clock is resolved once where the process is assembled: take a `now: Clock` from the caller (src/lifecycle) instead';
const isDateNow = "CallExpression[callee.object.name='Date'][callee.property.name='now']";
const oneClock = {
  meta: { type: 'problem', schema: [], messages: { clock: clockMessage } },
  create(context) {
    const report = (node) => context.report({ node, messageId: 'clock' });
    return {
      "NewExpression[callee.name='Date'][arguments.length=0]": report,
      [`AssignmentPattern > ${isDateNow}.right`]: report,
      [`LogicalExpression[operator='??'] > ${isDateNow}.right`]: report,
      // `x ?? systemClock` and its kin: the machine's clock is the composition roots' alone.
      "ImportSpecifier[imported.name='systemClock']": report,
    };
  },
};

// One path from a booking to its consequences (issue 37; STYLE 15): follow-ups, expectation
// matches and relay events of booked outcomes are written by src/reconcile/book-consequences.ts
// alone, which every path that books calls (a sync batch, a single sync, a window read, a
// sweep's or a backfill's page). Importing one of its steps anywhere else is a second copy of the
// sequence in the making.
const CONSEQUENCE_STEPS = ['followUpsFor', 'justSettled', 'matchSettledItems', 'itemEventsOf'];
const oneConsequencePath = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      step: '{{name}} is a step of the one path from a booking to its consequences: call bookConsequences (src/reconcile/index.ts) instead',
    },
  },
  create(context) {
    const pattern = CONSEQUENCE_STEPS.join('|');
    return {
      [`ImportSpecifier[imported.name=/^(${pattern})$/]`](node) {
        context.report({ node, messageId: 'step', data: { name: node.imported.name } });
      },
    };
  },
};

// One way out to the terminal (issue 38.9): the CLI's human output carries text the service, the
// merchant or the database wrote, so it goes through src/cli/output.ts, which strips escape
// sequences and control characters (`say`, `sayError`, `progressLine`, `redrawnBlock`) and keeps
// `--json` (`printJson`) and documents (`printDocument`) exact. A console call or a write to
// process.stdout/stderr anywhere else in src/cli would be a way around it.
const CLI_OUTPUT_MESSAGE =
  'write to the terminal through src/cli/output.ts (say, sayError, printJson, printDocument, progressLine): it strips control characters from human output';
const oneWayOut = {
  meta: { type: 'problem', schema: [], messages: { raw: CLI_OUTPUT_MESSAGE } },
  create(context) {
    const report = (node) => context.report({ node, messageId: 'raw' });
    return {
      "CallExpression > MemberExpression.callee[object.name='console']": report,
      "CallExpression > MemberExpression.callee[property.name='write'][object.type='MemberExpression'][object.object.name='process'][object.property.name=/^(stdout|stderr)$/]":
        report,
    };
  },
};

// Errors are data until a door words them (issue 41 item 2; STYLE 14): outside src/cli no thrown
// message, no error's constructor argument and no `…Problem` function's answer names a CLI flag
// (`--url`, or a `--` pieced together), since the ops API and the dashboard show the same error.
// A component throws a typed refusal (a code and its fields); src/cli/format/refusal-lines.ts
// words it for a terminal, src/ops/refusal-answers.ts for the API. And the API words a refusal
// from its fields, never by rewriting another door's sentence (`error.message.replace(…)`).
// A template's interpolations read as `\u0001`, so that `--${flag}` and `${'--'}` count too.
const HOLE = '\u0001';
const FLAG_IN_TEXT = new RegExp(`(^|[\\s"'(\`${HOLE}])--([a-z${HOLE}]|$)`);
const textOf = (node) =>
  node.type === 'Literal'
    ? typeof node.value === 'string'
      ? node.value
      : ''
    : node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join(HOLE);
const errorWords = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      flag: 'a CLI flag in an error of the domain: throw a typed refusal (a code and its fields) and word it in the CLI (src/cli/format/refusal-lines.ts) and the ops API (src/ops/refusal-answers.ts)',
      rewrite:
        "an error's message rewritten with a regular expression: word the refusal from its code and fields instead (src/ops/refusal-answers.ts)",
    },
  },
  create(context) {
    const file = context.filename.replaceAll('\\', '/');
    const inOps = file.includes('/src/ops/');
    const reported = new Set();
    const checkText = (node) => {
      if (reported.has(node) || !FLAG_IN_TEXT.test(textOf(node))) return;
      reported.add(node);
      context.report({ node, messageId: 'flag' });
    };
    const positions = [
      'ThrowStatement',
      'NewExpression[callee.name=/Error$/]',
      'FunctionDeclaration[id.name=/Problem$/] ReturnStatement',
      'VariableDeclarator[id.name=/Problem$/] ReturnStatement',
    ];
    const visitors = {};
    for (const position of positions) {
      visitors[`${position} Literal`] = checkText;
      visitors[`${position} TemplateLiteral`] = checkText;
    }
    if (inOps) {
      visitors['CallExpression[callee.property.name=/^replace(All)?$/]'] = (node) => {
        const target = node.callee.object;
        const name =
          target.type === 'Identifier'
            ? target.name
            : target.type === 'MemberExpression' && target.property.type === 'Identifier'
              ? target.property.name
              : '';
        const pattern = node.arguments[0];
        const flagPattern = pattern?.type === 'Literal' && pattern.regex?.pattern.includes('--');
        if (/message$/i.test(name) || flagPattern) context.report({ node, messageId: 'rewrite' });
      };
    }
    return visitors;
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', '.test-results/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': ['error', noOnly],
    },
  },
  ...tableOwnerBlocks,
  // One CSV rule (issue 38.3): every CSV paysync writes goes through src/exports/csv-text.ts,
  // which neutralises a text cell a spreadsheet would run as a formula (docs/exports.md).
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'bin/**/*.js', 'scripts/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/exports/csv-text.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['csv-stringify', 'csv-stringify/*'],
              message:
                'write CSV with stringifyCsv from src/exports/index.ts: it neutralises formula cells (CWE-1236)',
            },
          ],
        },
      ],
    },
  },
  // Traces pass their context by hand (issue 43; docs/performance.md, "Traces: what they cost"):
  // an "active" span is AsyncLocalStorage, whose promise hooks cost every promise on Node 20.
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...[
          ['trace', 'getActiveSpan'],
          ['context', 'active'],
          ['context', 'with'],
          [undefined, 'startActiveSpan'],
        ].map(([object, property]) => ({
          ...(object ? { object } : {}),
          property,
          message:
            "pass the span's context by hand (inSpan hands it to its work; traced() puts it in deps): an active span costs every promise (src/tracing)",
        })),
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    ignores: [
      'src/daemon/**',
      'src/cli/context.ts',
      'src/sim/**',
      'src/demo/**',
      'src/lifecycle/clock.ts',
    ],
    plugins: { paysync: { rules: { 'one-clock': oneClock } } },
    rules: { 'paysync/one-clock': 'error' },
  },
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    ignores: [
      'src/reconcile/book-consequences.ts',
      // The owners of the steps re-export them through their index.ts.
      'src/reconcile/follow-ups.ts',
      'src/expectations/**',
      'src/relay/**',
    ],
    plugins: { consequences: { rules: { 'one-consequence-path': oneConsequencePath } } },
    rules: { 'consequences/one-consequence-path': 'error' },
  },
  {
    files: ['src/cli/**/*.ts'],
    ignores: ['src/cli/output.ts'],
    plugins: { 'cli-output': { rules: { 'one-way-out': oneWayOut } } },
    rules: { 'cli-output/one-way-out': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: [
      // The CLI is the door that names its flags.
      'src/cli/**',
    ],
    plugins: { 'domain-errors': { rules: { 'no-cli-words': errorWords } } },
    rules: { 'domain-errors/no-cli-words': 'error' },
  },
);
