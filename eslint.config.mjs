import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noOnly = {
  selector:
    "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='only']",
  message: '.only must not be committed: CI would silently skip the rest of the suite.',
};

// The inbox is the only code that names its table (README, Development); everyone else
// calls src/inbox/index.ts (except the independent auditor, src/audit). Import boundaries live in .dependency-cruiser.cjs.
const inboxTableMessage =
  'only src/inbox names webhook_inbox: add a query to src/inbox and call it through its index.ts';
const inboxTableOutsideInbox = [
  { selector: 'Literal[value=/\\bwebhook_inbox\\b/]', message: inboxTableMessage },
  { selector: 'TemplateElement[value.raw=/\\bwebhook_inbox\\b/]', message: inboxTableMessage },
  { selector: "Identifier[name='webhook_inbox']", message: inboxTableMessage },
];

// One clock (issue 20; STYLE 12): the clock is chosen where a process is assembled (src/daemon,
// the CLI context src/cli/context.ts, the simulator src/sim, the demo src/demo) and passed down
// as `now: Clock`. Anywhere else, `new Date()` with no argument or `Date.now()` as a default
// (`x = Date.now()`, `x ?? Date.now()`) is a second home for it. Parsing (`new Date(text)`)
// and measuring elapsed time with `Date.now()` stay allowed. Its own rule, so that it
// composes with the no-restricted-syntax blocks above.
const clockMessage =
  'the clock is resolved once where the process is assembled: take a `now: Clock` from the caller (src/lifecycle) instead';
const isDateNow = "CallExpression[callee.object.name='Date'][callee.property.name='now']";
// Files that still read the machine's clock themselves (issue 20, not finished): take a file off
// this list once its clock comes from its caller. Never add one.
const clockNotYetPassedDown = [
  'src/alerts/sinks/webhook.sink.ts',
  'src/inbox/inbox.repository.ts',
  'src/ledger/book-adjustment.ts',
  'src/ledger/discrepancy.repository.ts',
  'src/metrics/job-metrics.ts',
  'src/ops/dashboard-router.ts',
  'src/outbox/add-to-outbox.ts',
  'src/outbox/outbox-consumption.ts',
  'src/receiver/hmac.scheme.ts',
  'src/receiver/standard-webhooks.scheme.ts',
  'src/reports/daily-report.ts',
  'src/upstream/client-options.ts',
  'src/upstream/errors.ts',
  'src/upstream/paging.ts',
];
const oneClock = {
  meta: { type: 'problem', schema: [], messages: { clock: clockMessage } },
  create(context) {
    const report = (node) => context.report({ node, messageId: 'clock' });
    return {
      "NewExpression[callee.name='Date'][arguments.length=0]": report,
      [`AssignmentPattern > ${isDateNow}.right`]: report,
      [`LogicalExpression[operator='??'] > ${isDateNow}.right`]: report,
    };
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
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'bin/**/*.js'],
    // The auditor (src/audit) judges the books from the tables themselves, independently of
    // the code that wrote them, so it reads the inbox table directly too.
    ignores: ['src/inbox/**', 'src/audit/**'],
    rules: { 'no-restricted-syntax': ['error', noOnly, ...inboxTableOutsideInbox] },
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
      ...clockNotYetPassedDown,
    ],
    plugins: { paysync: { rules: { 'one-clock': oneClock } } },
    rules: { 'paysync/one-clock': 'error' },
  },
);
