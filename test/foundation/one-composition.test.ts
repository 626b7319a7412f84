import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One way to assemble a process (issue 41, item 1): health and metrics are mounted once, every
 * port routes with Express on the one guarded server. Each rule was checked to fail on the code
 * before it (three mounts of `/healthz`, two hand-written routers on node:http).
 */
const root = join(import.meta.dirname, '..', '..');

/** Production TypeScript: src (but the simulator, which plays another service), jobs, bin. */
function productionFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) files.push(relative(root, path));
    }
  };
  for (const top of ['src', 'jobs', 'bin']) walk(join(root, top));
  return files.filter((file) => !file.startsWith('src/sim/')).sort();
}

const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The files whose text matches `pattern`. */
const filesMatching = (pattern: RegExp) =>
  productionFiles().filter((file) => pattern.test(read(file)));

describe('one composition', () => {
  it('mounts /healthz, /readyz and /metrics in one production file', () => {
    // A route registered (`.get('/healthz'`) or matched by hand (`path === '/healthz'`).
    const route = /(\.(get|all|use|head)\(\s*|===\s*)['"`]\/(healthz|readyz|metrics)['"`]/;
    expect(filesMatching(route)).toEqual(['src/metrics/health-routes.ts']);
  });

  it('routes every port with Express: no node:http server nor hand-written response outside the guarded server', () => {
    const byHand = /\bcreateServer\b[^;]*from 'node:http'|\.writeHead\(/;
    expect(filesMatching(byHand)).toEqual(['src/guarded-server.ts']);
  });

  it('keeps the assembly of one set of books within its budget: the roles live in roles.ts', () => {
    // 447 lines when every role was built inline; roles.ts holds them now.
    const lines = read('src/daemon/create-daemon.ts').split('\n').length;
    expect(lines).toBeLessThanOrEqual(375);
  });

  it('composes createDaemon and createTenantsDaemon with composeProcess, and serve with the daemon', () => {
    for (const file of ['src/daemon/create-daemon.ts', 'src/daemon/create-tenants-daemon.ts']) {
      expect(read(file), file).toMatch(/\bcomposeProcess\(/);
    }
    expect(read('src/cli/commands/serve.command.ts')).not.toMatch(/createReceiverServer|mountOps/);
  });

  it('keeps no module-level state in the CLI, the config and the tenants: the tenant chosen goes with the command', () => {
    // Issue 41: `useEnvironment` once swapped, in a variable of config/load-config.ts, the
    // environment every later read saw; the tenants served together lived in one of src/cli.
    const moduleLevel = /^(export )?let /m;
    const folders = ['src/cli/', 'src/config/', 'src/tenants/'];
    const files = productionFiles().filter((file) => folders.some((dir) => file.startsWith(dir)));
    expect(files.filter((file) => moduleLevel.test(read(file)))).toEqual([]);
    expect(read('src/cli/commands/daemon-role.action.ts')).toMatch(
      /tenantsServedTogether\(invoked\)/,
    );
    // The config is loaded from the environment given, taken from the command being run.
    expect(read('src/config/load-config.ts')).toMatch(
      /export function loadConfig\(env: EnvSource\)/,
    );
    expect(read('src/cli/context.ts')).toMatch(/loadConfig\(commandEnvironment\(invoked\)\)/);
  });
});
