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
);
