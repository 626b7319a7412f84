/**
 * The CLI's entry for code that runs it in its own process (tests): `runPaysync(argv)` is what
 * bin/paysync.js runs through main.ts. See test/support/run-cli-in-process.ts.
 */
export { runPaysync } from './run-paysync.ts';
