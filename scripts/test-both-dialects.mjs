#!/usr/bin/env node
// The test command the README and CI use: the `unit` project once, then every database suite
// on SQLite and again on PostgreSQL, each with its own count, then one closing total line.
// Extra arguments go to vitest (for example a file filter).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const projects = ['unit', 'sqlite', 'postgres'];
// Most suites wait on child processes, the simulator, Redis and the database rather than on
// the CPU, so on a 2-core machine three files at a time finish far sooner than vitest's
// default (one worker fewer than the cores: one). PostgreSQL files each use a schema of their
// own in one database; migrating beside a schema being dropped used to fail (see
// src/db/migrate.ts, anotherSchemaVanished), which kept PostgreSQL at one file at a time.
// PAYSYNC_TEST_WORKERS overrides.
const workers = { unit: 3, sqlite: 3, postgres: 3 };
const resultsDir = '.test-results';
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

const summaries = [];
for (const project of projects) {
  const outputFile = join(resultsDir, `${project}.json`);
  console.log(`\n=== ${project} ===`);
  const run = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${outputFile}`,
      '--passWithNoTests',
      `--maxWorkers=${process.env.PAYSYNC_TEST_WORKERS ?? workers[project]}`,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  let counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    const report = JSON.parse(readFileSync(outputFile, 'utf8'));
    counts = {
      passed: report.numPassedTests,
      failed: report.numFailedTests + (run.status !== 0 && report.numFailedTests === 0 ? 1 : 0),
      skipped: report.numPendingTests + report.numTodoTests,
    };
  } catch {
    counts.failed = 1; // vitest died before writing its report: count the run as a failure
  }
  summaries.push({ project, ...counts, exit: run.status });
}

console.log('\n=== summary ===');
for (const s of summaries) {
  console.log(`${s.project}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
}
const total = summaries.reduce(
  (sum, s) => ({
    passed: sum.passed + s.passed,
    failed: sum.failed + s.failed,
    skipped: sum.skipped + s.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(summaries.every((s) => s.exit === 0) && total.failed === 0 ? 0 : 1);
