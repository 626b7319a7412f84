/**
 * docs/relay-events.schema.json is generated from the code (src/relay/event-schemas.ts): this
 * fails when the two differ. Regenerate with `npm run relay:schema` and commit the result.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RELAY_EVENT_TYPES, relayEventsSchemaDocument } from '../../src/relay/index.ts';
import { messageProblems, relayDocument } from './support/relay-schema.ts';

const DOCUMENT = resolve(import.meta.dirname, '../../docs/relay-events.schema.json');

describe('the published schema of relayed events', () => {
  it('is the one the code generates (run `npm run relay:schema` when this fails)', () => {
    expect(readFileSync(DOCUMENT, 'utf8')).toBe(relayEventsSchemaDocument());
  });

  it('has every type of the catalog', () => {
    expect(Object.keys(relayDocument.definitions).filter((k) => !k.endsWith('_data'))).toEqual([
      ...RELAY_EVENT_TYPES,
    ]);
  });

  it('refuses a message that breaks it', () => {
    const verdict = {
      id: 'evt_0123456789abcdef0123456789abcdef',
      type: 'day.verdict',
      timestamp: '2026-11-02T00:10:00.000Z',
      environment: 'sandbox',
      data: {
        day: '2026-11-01',
        timeZone: 'Africa/Dakar',
        window: { from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' },
        verdict: 'RECONCILED',
        counts: [{ kind: 'transfer', status: 'successful', count: 3 }],
        pending: 0,
        breaks: 0,
        incomplete: [],
        computedAt: '2026-11-02T00:10:00.000Z',
      },
    };
    expect(messageProblems(verdict)).toEqual([]);
    expect(messageProblems({ ...verdict, data: { ...verdict.data, verdict: 'FINE' } })).not.toEqual(
      [],
    );
    expect(messageProblems({ ...verdict, data: { ...verdict.data, pending: 1.5 } })).not.toEqual(
      [],
    );
    expect(messageProblems({ ...verdict, environment: 'staging' })).not.toEqual([]);
    expect(messageProblems({ ...verdict, type: 'day.closed' })).not.toEqual([]);
  });
});
