import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Sample } from './scrape.ts';

/** Debian's promtool (`.ci/run` installs the prometheus package when it is installable). */
export const PROMTOOL = (process.env.PATH ?? '')
  .split(':')
  .map((folder) => join(folder, 'promtool'))
  .find((candidate) => existsSync(candidate));

/** Runs promtool (which must be installed: check {@link PROMTOOL} first). */
export function promtool(args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(PROMTOOL!, [...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** A sample as a promtool `input_series` name: `name{label="value",…}`. */
export function seriesName(sample: Sample): string {
  const labels = Object.entries(sample.labels).map(([k, v]) => `${k}="${v}"`);
  return `${sample.name}{${labels.join(',')}}`;
}
