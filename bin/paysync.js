#!/usr/bin/env node
// paysync ships TypeScript sources and runs them through tsx, so `npm ci && npx paysync`
// works with no build step to remember.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
