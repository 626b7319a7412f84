#!/usr/bin/env node
// The test command the README and CI use: the `unit` project once, and every database suite
// on SQLite and again on PostgreSQL, each with its own count, then one closing total line.
// Extra arguments go to vitest (for example a file filter).
//
// The projects share nothing but Redis (each test uses queue prefixes of its own), so they run
// in two lanes side by side: `unit` then `sqlite` in one, `postgres` (the longest) in the
// other. Each project's output is kept and printed whole when it ends, so two projects never
// interleave their lines. PAYSYNC_TEST_SERIAL=1 runs the three one after another instead.
// Before the summary it lists the ten slowest files of the run (a report, not a check); the
// closing total line stays the last line.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

// Most suites wait on child processes, the simulator, Redis and the database rather than on
// the CPU, so on a 2-core machine several files at a time finish far sooner than vitest's
// default (one worker fewer than the cores: one). PostgreSQL files each use a schema of their
// own in one database; migrating beside a schema being dropped used to fail (see
// src/db/migrate.ts, anotherSchemaVanished), which kept PostgreSQL at one file at a time.
// PAYSYNC_TEST_WORKERS overrides.
const workers = { unit: 3, sqlite: 3, postgres: 3 };
const serial = process.env.PAYSYNC_TEST_SERIAL === '1';
const lanes = serial ? [['unit', 'sqlite', 'postgres']] : [['unit', 'sqlite'], ['postgres']];
const resultsDir = '.test-results';
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

/** Runs one vitest project; resolves with its counts once its report is written. */
function runProject(project) {
  const outputFile = join(resultsDir, `${project}.json`);
  const logFile = join(resultsDir, `${project}.log`);
  const started = Date.now();
  console.log(`=== ${project}: started (output in ${logFile}, printed when it ends) ===`);
  return new Promise((resolve) => {
    const child = spawn(
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
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } },
    );
    const log = createWriteStream(logFile);
    const chunks = [];
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        chunks.push(chunk);
        log.write(chunk);
      });
    }
    child.on('close', (code, signal) => {
      log.end();
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`\n=== ${project} (${seconds} s) ===`);
      process.stdout.write(Buffer.concat(chunks));
      let counts = { passed: 0, failed: 0, skipped: 0 };
      const exit = code ?? (signal ? 1 : 0);
      try {
        const report = JSON.parse(readFileSync(outputFile, 'utf8'));
        counts = {
          passed: report.numPassedTests,
          failed: report.numFailedTests + (exit !== 0 && report.numFailedTests === 0 ? 1 : 0),
          skipped: report.numPendingTests + report.numTodoTests,
        };
      } catch {
        counts.failed = 1; // vitest died before writing its report: count the run as a failure
      }
      resolve({ project, ...counts, exit, seconds });
    });
  });
}

async function runLane(projects) {
  const results = [];
  for (const project of projects) results.push(await runProject(project));
  return results;
}

const byProject = new Map(
  (await Promise.all(lanes.map(runLane))).flat().map((s) => [s.project, s]),
);
const summaries = ['unit', 'sqlite', 'postgres'].map((p) => byProject.get(p));

/**
 * The slowest test files of all three projects, from the JSON reports: a report to say where
 * the suite's time goes (docs/performance.md, "CI time"), never a check. A file's time is from
 * its first test's start to its end, as vitest records it, so it includes its hooks.
 */
function slowestFiles(count) {
  const files = [];
  for (const project of ['unit', 'sqlite', 'postgres']) {
    let report;
    try {
      report = JSON.parse(readFileSync(join(resultsDir, `${project}.json`), 'utf8'));
    } catch {
      continue; // that project wrote no report; its summary line says it failed
    }
    for (const file of report.testResults ?? []) {
      const ms = (file.endTime ?? 0) - (file.startTime ?? 0);
      if (ms > 0) files.push({ project, name: relative(process.cwd(), file.name), ms });
    }
  }
  return files.sort((a, b) => b.ms - a.ms).slice(0, count);
}

const slowest = slowestFiles(10);
if (slowest.length > 0) {
  console.log(`\n=== slowest test files (file time, hooks included) ===`);
  for (const file of slowest) {
    console.log(
      `${(file.ms / 1000).toFixed(1).padStart(6)} s  ${file.project.padEnd(8)} ${file.name}`,
    );
  }
}

console.log('\n=== summary ===');
for (const s of summaries) {
  console.log(
    `${s.project}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (${s.seconds} s)`,
  );
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
