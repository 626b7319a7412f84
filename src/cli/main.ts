import { runPaysync } from './run-paysync.ts';

// The process's entry (bin/paysync.js): the exit code of a failure, else whatever the command set.
const failed = await runPaysync(process.argv);
if (failed !== undefined) process.exitCode = failed;
