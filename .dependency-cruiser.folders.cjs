/**
 * No cycle between folders (issue 20.3), run by `npm run lint:boundaries` after the module
 * rules of .dependency-cruiser.cjs. dependency-cruiser aggregates the module graph to folders
 * (`options.metrics`) and a `scope: 'folder'` rule flags every folder dependency that is part
 * of a cycle: src/reports → src/exports → src/reports is refused even when no single file
 * imports itself back. The layer order of .dependency-cruiser.cjs already makes the component
 * graph acyclic; this rule also covers sub-folders inside a component, jobs/, bin/, test/,
 * bench/ and scripts/.
 *
 * This is a second configuration because the folder graph needs two things left out that the
 * module rules must see:
 * - the single files at the top of src/ (logger.ts, error-reason.ts, config.ts): they sit in
 *   the folder `src`, which also stands for all of src/ in the folder graph, so every
 *   component → logger.ts edge would close a false cycle through src → jobs → the component;
 *   they are leaves and cannot be part of a real cycle;
 * - the `*.table.ts` row types that src/db/database.ts gathers (documented exception in
 *   .dependency-cruiser.cjs): db → every table owner → db is that design, not a tangle;
 * - the leaf `*.defaults.ts` constants that src/config reads (rule defaults-are-leaves in
 *   .dependency-cruiser.cjs): they import nothing, so config → component is no real edge.
 *
 * Known folder cycles, named: inside the simulator, src/sim/engine runs the machines of
 * src/sim/machines, while the machines and the factories of src/sim/factories name the engine's
 * types (type-only imports count), the payment-link machine creates its payment intent with a
 * factory, and the factories name the machines' context type. They are one component's parts;
 * untangling them (the shared types into a lower sub-folder) is left to the simulator's owners.
 */
const modules = require('./.dependency-cruiser.cjs');

const KNOWN_FOLDER_CYCLES = '^src/sim/(engine|machines|factories)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      scope: 'folder',
      comment:
        'Folders must not import each other in a circle: move the shared part into a lower ' +
        'folder (see the layers in .dependency-cruiser.cjs and docs/architecture.md).',
      from: { pathNot: KNOWN_FOLDER_CYCLES },
      to: { circular: true },
    },
  ],
  options: {
    ...modules.options,
    exclude: { path: ['^src/[^/]+\\.ts$', '\\.tables?\\.ts$', '\\.defaults\\.ts$'] },
    metrics: true,
  },
};
