/**
 * An entry of its own for the expectations' words, apart from the index, which loads the whole
 * component (import, matching, the ledger): the CLI's `expect` options list them, and defining
 * options must stay light for `paysync --help` (issue 39).
 */
export { BREAK_KINDS, EXPECTATION_STATES } from './expectation-words.defaults.ts';
