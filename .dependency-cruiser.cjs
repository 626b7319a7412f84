/**
 * Import boundaries of paysync (README, Development; hardening issue 7.F20). Run by
 * `npm run lint`, where a violation fails; test/foundation/boundaries.test.ts checks that
 * these rules still catch a planted violation.
 *
 * A component is a folder under src/ (src/inbox, src/ledger…); its public surface is its
 * index.ts. The single files at the top of src/ (config.ts, logger.ts, error-reason.ts) are
 * shared leaves anyone may import. Type-only imports count like any other.
 *
 * Documented exceptions:
 * - src/db/database.ts gathers every component's `*.table.ts` into the one `Database`
 *   interface (row types stay in the data layer; a component's index need not export them);
 * - src/upstream/contract/index.ts is a public entry of its own: the ledger and the simulator
 *   need the service's schemas without the client;
 * - the simulator is production code's no-go, except for the two commands whose whole purpose
 *   is to run it: `paysync sim` (src/cli/commands/sim.command.ts) and `paysync demo` (through
 *   src/demo, which only src/cli/commands/demo.command.ts may load). Both load it lazily with
 *   `await import(…)`, so no other command ever loads the simulator.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'component-private-file',
      severity: 'error',
      comment:
        "Components talk only through each other's index.ts: import '../<component>/index.ts', " +
        'or export what you need from there.',
      from: { path: '^src/([^/]+)/', pathNot: '^src/db/database\\.ts$' },
      to: {
        path: '^src/[^/]+/',
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', '^src/upstream/contract/index\\.ts$'],
      },
    },
    {
      name: 'database-gathers-tables-only',
      severity: 'error',
      comment: 'src/db/database.ts may reach into a component only for its *.table.ts row types.',
      from: { path: '^src/db/database\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/db/', '\\.table\\.ts$'] },
    },
    {
      name: 'door-imports-component-index',
      severity: 'error',
      comment:
        'jobs/ and bin/ are doors: they reach src/ components only through their index.ts ' +
        "(bin/paysync.js starts the CLI's entry, src/cli/main.ts).",
      from: { path: '^(jobs|bin)/' },
      to: {
        path: '^src/[^/]+/',
        pathNot: [
          '^src/[^/]+/index\\.ts$',
          '^src/upstream/contract/index\\.ts$',
          '^src/cli/main\\.ts$',
        ],
      },
    },
    {
      name: 'ledger-stays-offline',
      severity: 'error',
      comment:
        'The ledger never calls the service, queues work or knows a door: it may use only ' +
        'upstream/contract (schemas), not the client, queues, reconcile, cli, receiver, jobs or ops.',
      from: { path: '^src/ledger/' },
      to: {
        path: [
          '^src/upstream/(?!contract/)',
          '^src/(queues|reconcile|cli|receiver|ops|daemon|demo|doctor|replay|sim)/',
          '^jobs/',
          '^bin/',
        ],
      },
    },
    {
      name: 'domain-never-imports-a-door',
      severity: 'error',
      comment: 'Doors (cli, receiver, jobs, ops) call the domain; the domain never imports a door.',
      from: {
        path: '^src/',
        pathNot: ['^src/(cli|receiver|ops|daemon|demo|doctor)/'],
      },
      to: { path: ['^src/(cli|receiver|ops)/', '^jobs/', '^bin/'] },
    },
    {
      name: 'no-simulator-in-production',
      severity: 'error',
      comment:
        'Production code never imports src/sim. Only `paysync sim` and `paysync demo` may, ' +
        'lazily (see the exceptions at the top of this file).',
      from: {
        path: '^(src|jobs|bin|migrations)/',
        pathNot: ['^src/sim/', '^src/demo/', '^src/cli/commands/sim\\.command\\.ts$'],
      },
      to: { path: '^src/sim/' },
    },
    {
      name: 'simulator-loaded-lazily',
      severity: 'error',
      comment: '`paysync sim` loads the simulator only when run: use `await import(…)`.',
      from: { path: '^src/cli/commands/sim\\.command\\.ts$' },
      to: { path: '^src/sim/', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'demo-only-from-its-command',
      severity: 'error',
      comment:
        'src/demo starts the simulator; only `paysync demo` may load it, and only when run ' +
        '(`await import(…)`). Its types (erased at run time) may be named anywhere in the CLI.',
      from: {
        path: '^(src|jobs|bin)/',
        pathNot: ['^src/demo/', '^src/cli/commands/demo\\.command\\.ts$'],
      },
      to: { path: '^src/demo/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'demo-command-loads-demo-lazily',
      severity: 'error',
      comment: '`paysync demo` loads src/demo (and so the simulator) only when run.',
      from: { path: '^src/cli/commands/demo\\.command\\.ts$' },
      to: { path: '^src/demo/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'migrations-stand-alone',
      severity: 'error',
      comment:
        'A shipped migration must never change because live code did: migrations import only ' +
        'kysely and migrations/ (schema-helpers.ts), nothing from src/.',
      from: { path: '^migrations/' },
      to: { path: '^(src|jobs|bin)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|jobs|bin|migrations)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
