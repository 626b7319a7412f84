import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PAYSYNC_BIN } from '../support/run-cli.ts';

// Issue 43: tracing off costs nothing. Without an OTLP endpoint `paysync serve` loads none of
// the OpenTelemetry SDK (only the API, whose tracer is a no-op); with one it does. The process
// runs with the module hooks of test/support/import-recorder, on a database it cannot open, so
// it loads the daemon and stops with exit 1.
const RECORDER = resolve(import.meta.dirname, '../support/import-recorder/register.mjs');
const SDK = /\/node_modules\/@opentelemetry\/(sdk-|exporter-|resources|otlp-|core)/;
const API = /\/node_modules\/@opentelemetry\/api\//;

const folder = mkdtempSync(join(tmpdir(), 'paysync-otel-loading-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function serveLoads(name: string, env: Record<string, string>): Promise<string[]> {
  const file = join(folder, `${name}.txt`);
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', RECORDER, PAYSYNC_BIN, 'serve'],
      {
        cwd: folder,
        env: {
          PATH: process.env.PATH ?? '',
          PAYSYNC_TEST_IMPORTS_FILE: file,
          PAYSYNC_DATABASE_URL: 'sqlite:/proc/version/x.db',
          PAYSYNC_WEBHOOK_SCHEME: 'none',
          ...env,
        },
        timeout: 60_000,
      },
      () => {
        let modules: string[] = [];
        try {
          modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        } catch {
          // nothing recorded: the assertions say so
        }
        done(modules);
      },
    );
  });
}

describe('the OpenTelemetry SDK is loaded only when an OTLP endpoint is set', () => {
  it('`paysync serve` without OTEL_EXPORTER_OTLP_ENDPOINT loads the API, none of the SDK', async () => {
    const modules = await serveLoads('off', {});
    expect(modules.some((url) => /\/node_modules\/express\//.test(url))).toBe(true);
    expect(modules.some((url) => API.test(url))).toBe(true);
    expect(modules.filter((url) => SDK.test(url))).toEqual([]);
  }, 60_000);

  it('with it set, the SDK and the exporter are loaded', async () => {
    const modules = await serveLoads('on', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(modules.some((url) => /@opentelemetry\/sdk-trace-node\//.test(url))).toBe(true);
    expect(modules.some((url) => /@opentelemetry\/exporter-trace-otlp-proto\//.test(url))).toBe(
      true,
    );
  }, 60_000);
});
