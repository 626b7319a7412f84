/**
 * Import boundaries of paysync (README, Development; docs/architecture.md; hardening issues
 * 7.F20 and 20.3). Run by `npm run lint:boundaries` (part of `npm run lint`), together with the
 * folder-cycle check in .dependency-cruiser.folders.cjs; a violation fails both.
 * test/foundation/boundaries.test.ts checks that these rules still catch a planted violation.
 *
 * A component is a folder under src/ (src/inbox, src/ledger…); its public surface is its
 * index.ts. The single files at the top of src/ (logger.ts, error-reason.ts) are shared leaves
 * anyone may import; src/config/ is an infrastructure component anyone may import, through its
 * index.ts like any other. Type-only imports count like any other.
 *
 * THE LAYERS (bottom to top; docs/architecture.md draws them). A component may import only
 * components of a lower layer, never one of its own layer or above, except the pairs listed in
 * SAME_LAYER_PAIRS below. So `reports` cannot import `exports`, the ledger cannot import
 * reconcile, and nothing in the domain can import a door.
 *
 * Where today's code breaks the order (issue 20.3): nowhere; the webhook counters the
 * dashboard shows moved from src/receiver to src/metrics, so ops no longer imports receiver.
 * Where the issue's suggested order was changed:
 * - The suggested order put outbox, service-state, reconcile, polling, reports, balances,
 *   exports and alerts in one layer; the code says they are stacked, and it is the order that
 *   was too flat, not the imports: service-state (the service's observed state) and outbox
 *   (follow-ups written in the sync transaction) sit under the ledger's users; reconcile is
 *   used by polling and balances; balances and exports are built on reports (the books day,
 *   stored verdicts); alerts watches balances, polling and reports, so it sits on top.
 * - ingest → inbox and queues, metrics → db, logger → config, lifecycle → logger: stacked
 *   rungs of what the issue called one layer (intake; infrastructure).
 * Components being moved by other work, already placed: `runs` (scheduled-run records out of
 * src/polling) under polling; `resource-view` (the `show` read model out of src/ledger) above
 * the ledger and inbox; `books-calendar` (books-day arithmetic, if it becomes a component) with
 * the shared words; `config` as file or folder (it is the bottom: settings that other layers
 * read, so a component's DEFAULT_* constant that the configuration needs must be declared in
 * src/config/ and read from there by the component, not the other way round, which would be
 * an upward import, and a folder cycle wherever the component reads its settings). A new
 * component must be added to a layer here (rule component-has-a-layer) and to
 * docs/architecture.md.
 *
 * Other documented exceptions:
 * - src/db/database.ts gathers every component's `*.table.ts` into the one `Database`
 *   interface (row types stay in the data layer; a component's index need not export them);
 *   it is exempt from the layer order, and may reach only table files;
 * - src/expectations/expectation-words.ts is a public entry of its own: the expectations' states
 *   and break kinds, without the component the index loads, for the CLI's `expect` options
 *   (issue 39);
 * - src/queues/enqueue.ts is a public entry of its own for components: the job names and
 *   payloads and the enqueue helpers without BullMQ and ioredis, which the index loads, so that
 *   code on the CLI's read paths (the outbox, the janitor, the syncs' helpers) does not load
 *   them (issue 39);
 * - src/ledger/resource-reads.ts and src/inbox/resource-reads.ts are public entries of their
 *   own: what `paysync show` reads about one resource (src/resource-view), without the rest of
 *   the ledger and the inbox, which their index.ts loads (issue 39);
 * - src/alerts/mask-number.ts is a public entry of its own: the one masking policy for phone and
 *   account numbers (a leaf that imports nothing), which `paysync show` applies to what it prints
 *   without loading the alert runtime, Nodemailer and the ledger's index that alerts/index.ts
 *   loads (issue 40.8);
 * - src/upstream/contract/index.ts is a public entry of its own: the ledger and the simulator
 *   need the service's schemas without the client;
 * - the simulator is production code's no-go, except for the two commands whose whole purpose
 *   is to run it: `paysync sim` (src/cli/commands/sim.command.ts) and `paysync demo` (through
 *   src/demo, which only src/cli/commands/demo.command.ts may load). Both load it lazily with
 *   `await import(…)`, so no other command ever loads the simulator;
 * - test/, bench/ and scripts/ reach src/ only through index.ts, except that a suite in
 *   test/<component>/ may test src/<component>/'s own private files, and the pairs in
 *   TEST_REACHES_INTERNAL below.
 */

/** Bottom to top. A name is a folder under src/ (or a single src/<name>.ts), or jobs/bin. */
const LAYERS = [
  { name: 'infrastructure: settings', components: ['config'] },
  { name: 'infrastructure: traces', components: ['tracing'] },
  {
    name: 'infrastructure: logs, reasons',
    components: ['logger', 'error-reason', 'private-files', 'guarded-server'],
  },
  { name: 'infrastructure: database', components: ['db'] },
  { name: 'infrastructure: process', components: ['lifecycle', 'metrics'] },
  { name: 'tenants', components: ['tenants'] },
  { name: 'shared words', components: ['resources', 'money', 'books-calendar'] },
  { name: 'the payment service', components: ['upstream'] },
  { name: 'the simulator', components: ['sim'] },
  { name: 'durable stores and queues', components: ['inbox', 'queues', 'service-state'] },
  { name: 'intake and follow-ups', components: ['ingest', 'outbox'] },
  { name: 'the ledger', components: ['ledger'] },
  // Events are emitted in the transaction of the change, so every component that changes the
  // books (sync, sweeps, balances, verdicts, alerts) calls the relay; it reads only the ledger.
  { name: 'the relay', components: ['relay'] },
  // Expectations read the ledger's settled items (matching) and are matched in the sync
  // transaction, so they sit above the ledger and the relay and under reconcile.
  { name: 'expectations', components: ['expectations'] },
  { name: 'sync, run records, the item view', components: ['reconcile', 'runs', 'resource-view'] },
  {
    name: 'books tasks and views',
    components: ['polling', 'reports', 'receipts', 'replay', 'audit'],
  },
  { name: 'built on the books day', components: ['balances'] },
  { name: 'the books out', components: ['exports'] },
  { name: 'watch', components: ['alerts'] },
  { name: 'upkeep', components: ['retention'] },
  { name: 'doors', components: ['receiver', 'ops', 'jobs'] },
  { name: 'composition', components: ['daemon', 'doctor'] },
  { name: 'the demo', components: ['demo'] },
  { name: 'the CLI', components: ['cli'] },
  { name: 'the executable', components: ['bin'] },
];

/** Imports inside one layer that are allowed, each with its reason. Keep this list short. */
const SAME_LAYER_PAIRS = [];

/**
 * Private files a test outside the component's own test/ folder may reach, with the reason.
 * `from` captures the test's folder (a suite in test/<component>/ keeps its own right); no two
 * `from`s may match the same file.
 */
const TEST_REACHES_INTERNAL = [
  {
    from: '^test/(foundation)/query-plans\\.db\\.test\\.ts$',
    to: '^src/cli/program\\.ts$',
    why: 'the plan test runs the CLI commands in-process, so their statements are captured and explained',
  },
  {
    from: '^test/(processing)/(redis-loss|sync-failures)\\.db\\.test\\.ts$',
    to: '^src/reconcile/reconcile-metrics\\.ts$',
    why: "these suites read reconcile's sync and recovery counters, which its index does not export",
  },
  {
    from: '^test/(processing)/recovery-sweep\\.db\\.test\\.ts$',
    to: '^src/daemon/scheduler\\.ts$',
    why: "the recovery sweep is proved through the daemon's own scheduler",
  },
  {
    from: '^test/(upstream)/paging\\.sim\\.test\\.ts$',
    to: '^src/sim/faults/fault-settings\\.ts$',
    why: "the paging test iterates over every list order the simulator's faults can serve",
  },
];

/** A component's defaults: a leaf of constants the configuration may read (see the rules). */
const DEFAULTS_FILE = '^src/[^/]+/[^/]+\\.defaults\\.ts$';

const pathOf = (component) =>
  component === 'jobs' || component === 'bin' ? `^${component}/` : `^src/${component}(/|\\.ts$)`;

const SRC_COMPONENTS = LAYERS.flatMap((layer) => layer.components).filter(
  (c) => c !== 'jobs' && c !== 'bin',
);
const KNOWN_COMPONENT = `^src/(${SRC_COMPONENTS.join('|')})(/|\\.ts$)`;

/** One rule per component: nothing from its own layer (but the listed pairs) or above. */
const layerRules = LAYERS.flatMap((layer, index) =>
  layer.components.map((component) => {
    const above = LAYERS.slice(index + 1).flatMap((l) => l.components);
    const sameLayer = layer.components.filter(
      (other) =>
        other !== component &&
        !SAME_LAYER_PAIRS.some((pair) => pair.from === component && pair.to === other),
    );
    const lower = LAYERS.slice(0, index)
      .map((l) => l.components.join(', '))
      .join(' | ');
    return {
      name: `layer-order: ${component}`,
      severity: 'error',
      comment:
        `${component} (layer "${layer.name}") may import only lower layers: ${lower || 'none'}. ` +
        'Move the code down, or change the layer list in .dependency-cruiser.cjs and ' +
        'docs/architecture.md with a reason.',
      from: {
        path: pathOf(component),
        ...(component === 'db' ? { pathNot: '^src/db/database\\.ts$' } : {}),
      },
      to: {
        path: [...above, ...sameLayer].map(pathOf),
        // The configuration reads a component's DEFAULT_* constants from its leaf
        // `*.defaults.ts` (rule defaults-are-leaves), so each default is declared once.
        ...(component === 'config' ? { pathNot: DEFAULTS_FILE } : {}),
      },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
const configuration = {
  forbidden: [
    ...layerRules.filter((rule) => rule.to.path.length > 0),
    {
      name: 'component-has-a-layer',
      severity: 'error',
      comment:
        'Every folder (or single file) under src/ belongs to a layer: add it to LAYERS in ' +
        '.dependency-cruiser.cjs and to docs/architecture.md.',
      from: { path: '^src/', pathNot: KNOWN_COMPONENT },
      to: {},
    },
    {
      name: 'component-has-a-layer',
      severity: 'error',
      comment:
        'Every folder (or single file) under src/ belongs to a layer: add it to LAYERS in ' +
        '.dependency-cruiser.cjs and to docs/architecture.md.',
      from: {},
      to: { path: '^src/', pathNot: KNOWN_COMPONENT },
    },
    {
      name: 'component-private-file',
      severity: 'error',
      comment:
        "Components talk only through each other's index.ts: import '../<component>/index.ts', " +
        'or export what you need from there.',
      from: { path: '^src/([^/]+)/', pathNot: ['^src/db/database\\.ts$', '^src/config/'] },
      to: {
        path: '^src/[^/]+/',
        pathNot: [
          '^src/$1/',
          '^src/[^/]+/index\\.ts$',
          '^src/upstream/contract/index\\.ts$',
          '^src/queues/enqueue\\.ts$',
          '^src/expectations/expectation-words\\.ts$',
          '^src/ledger/resource-reads\\.ts$',
          '^src/inbox/resource-reads\\.ts$',
          '^src/alerts/mask-number\\.ts$',
        ],
      },
    },
    {
      name: 'component-private-file',
      severity: 'error',
      comment:
        'src/config, the bottom layer, reads a component only for its leaf `*.defaults.ts` ' +
        '(defaults-are-leaves, below): each default is declared once, in its component.',
      from: { path: '^src/config/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/config/', DEFAULTS_FILE] },
    },
    {
      name: 'only-config-reads-defaults-files',
      severity: 'error',
      comment:
        "A component's `*.defaults.ts` is read by its own component and by src/config alone; " +
        'everyone else uses the constant through the index.ts.',
      from: { path: '^src/([^/]+)/', pathNot: ['^src/config/'] },
      to: { path: DEFAULTS_FILE, pathNot: '^src/$1/' },
    },
    {
      name: 'defaults-are-leaves',
      severity: 'error',
      comment:
        'A `*.defaults.ts` file declares constants and imports nothing, so the configuration ' +
        '(the bottom layer) can read it without importing its component.',
      from: { path: DEFAULTS_FILE },
      to: { path: '^(src|jobs|bin)/' },
    },
    {
      name: 'database-gathers-tables-only',
      severity: 'error',
      comment: 'src/db/database.ts may reach into a component only for its *.table.ts row types.',
      from: { path: '^src/db/database\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/db/', '\\.tables?\\.ts$'] },
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
      comment:
        'Doors (receiver, ops, jobs, cli) and the composition around them (daemon, doctor, ' +
        'demo) call the domain; the domain never imports any of them.',
      from: {
        path: '^src/',
        pathNot: ['^src/(cli|receiver|ops|daemon|demo|doctor)/'],
      },
      to: { path: ['^src/(cli|receiver|ops|daemon|demo|doctor)/', '^jobs/', '^bin/'] },
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
        'src/demo starts the simulator; only `paysync demo` (and `paysync sim --traffic`, which ' +
        "runs the demo's business against its simulator) may load it, and only when run " +
        '(`await import(…)`). Its types (erased at run time) may be named anywhere in the CLI.',
      from: {
        path: '^(src|jobs|bin)/',
        pathNot: ['^src/demo/', '^src/cli/commands/(demo|sim)\\.command\\.ts$'],
      },
      to: { path: '^src/demo/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'demo-command-loads-demo-lazily',
      severity: 'error',
      comment:
        '`paysync demo` and `paysync sim` load src/demo (and so the simulator) only when run.',
      from: { path: '^src/cli/commands/(demo|sim)\\.command\\.ts$' },
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
    {
      name: 'production-never-imports-tests-or-tools',
      severity: 'error',
      comment: 'src/, jobs/, bin/ and migrations/ never import test/, bench/ or scripts/.',
      from: { path: '^(src|jobs|bin|migrations)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'test-through-component-index',
      severity: 'error',
      comment:
        'A test reaches a component through its index.ts; a suite in test/<component>/ may also ' +
        "test src/<component>/'s private files. Export what you need, or name the exception in " +
        'TEST_REACHES_INTERNAL with its reason.',
      from: { path: '^test/([^/]+)/', pathNot: TEST_REACHES_INTERNAL.map((e) => e.from) },
      to: {
        path: '^src/[^/]+/',
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', '^src/upstream/contract/index\\.ts$'],
      },
    },
    ...TEST_REACHES_INTERNAL.map((exception) => ({
      name: 'test-through-component-index',
      severity: 'error',
      comment: `Named exception (${exception.why}): this test may reach only that one private file.`,
      from: { path: exception.from },
      to: {
        path: '^src/[^/]+/',
        pathNot: [
          '^src/[^/]+/index\\.ts$',
          '^src/upstream/contract/index\\.ts$',
          exception.to,
          '^src/$1/', // a named test in test/<component>/ keeps that folder's right
        ],
      },
    })),
    {
      name: 'tools-through-component-index',
      severity: 'error',
      comment: 'bench/ and scripts/ reach src/ components only through their index.ts.',
      from: { path: '^(bench|scripts)/' },
      to: {
        path: '^src/[^/]+/',
        pathNot: ['^src/[^/]+/index\\.ts$', '^src/upstream/contract/index\\.ts$'],
      },
    },
    {
      name: 'tools-share-only-test-support',
      severity: 'error',
      comment:
        'bench/ and scripts/ may use the shared harness in test/support/ (traffic generation, ' +
        "databases, Redis), never a test file or a suite's own support folder.",
      from: { path: '^(bench|scripts)/' },
      to: { path: '^test/', pathNot: '^test/support/' },
    },
    {
      name: 'tests-never-import-tools',
      severity: 'error',
      comment: 'test/ never imports bench/ or scripts/: move what both need into test/support/.',
      from: { path: '^test/' },
      to: { path: '^(bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|jobs|bin|migrations|test|bench|scripts)/',
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

// test/foundation/architecture-doc.test.ts compares LAYERS with docs/architecture.md; not
// enumerable, so dependency-cruiser's schema (no unknown keys) never sees it.
Object.defineProperty(configuration, 'layers', { value: LAYERS, enumerable: false });
module.exports = configuration;
