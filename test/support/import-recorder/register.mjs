// `node --import ./register.mjs …`: records every module the process resolves (one URL a line)
// in the file PAYSYNC_TEST_IMPORTS_FILE names, for test/cli/command-loading.test.ts.
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url), {
  data: { file: process.env.PAYSYNC_TEST_IMPORTS_FILE },
});
