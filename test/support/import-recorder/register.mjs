// `node --import ./register.mjs …`: records every module the process resolves (one URL a line)
// in the file PAYSYNC_TEST_IMPORTS_FILE names, for test/cli/command-loading.test.ts.
import { appendFileSync } from 'node:fs';
import Module, { isBuiltin, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.PAYSYNC_TEST_IMPORTS_FILE;

register(new URL('./hooks.mjs', import.meta.url), { data: { file } });

// The hooks above see `import` only (Node 20): what `require` loads (a CommonJS package's own
// files, or a package the code loads lazily through createRequire) is recorded here, as a URL too.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function recordedResolveFilename(...args) {
  const path = resolveFilename.apply(this, args);
  if (file) {
    const url = isBuiltin(path) ? `node:${path.replace(/^node:/, '')}` : pathToFileURL(path).href;
    appendFileSync(file, `${url}\n`);
  }
  return path;
};
