/**
 * Generates docs/relay-events.schema.json (JSON Schema draft-07: the message of every relayed
 * event type) from the zod schemas the relay builds its events' `data` with (src/relay).
 * `--check` fails instead of writing when the checked-in file is stale; test/relay checks it too.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayEventsSchemaDocument } from '../src/relay/index.ts';
import { writeOrCheck } from './write-or-check.ts';

const OUTPUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/relay-events.schema.json');

writeOrCheck(
  OUTPUT,
  relayEventsSchemaDocument(),
  'docs/relay-events.schema.json',
  'npm run relay:schema',
);
