import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { operationIds, operations, type OperationDefinition } from '../../src/upstream/index.ts';

const withStricterSimulator = operationIds.filter(
  (id) => (operations[id] as OperationDefinition).simulatorChecks !== undefined,
);

const stricterParts = withStricterSimulator.flatMap((operationId) => {
  const operation: OperationDefinition = operations[operationId];
  return (['body', 'query'] as const)
    .filter((part) => operation.simulatorChecks?.[part] !== undefined)
    .map((part) => ({
      operationId,
      part,
      documented: operation[part] as z.ZodObject,
      simulator: operation.simulatorChecks![part] as z.ZodObject,
    }));
});

/** A value of any JSON shape, or the text form a query parameter arrives in. */
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('', '0', '1', '2.5', '-1', 'XOF', 'xof', '2024-05-01T12:00:00.000Z', 'true'),
  fc.integer(),
  fc.double({ noNaN: true }),
);

describe('simulatorChecks only add to what the document shows', () => {
  test.each(stricterParts)(
    '$operationId $part: whatever the client refuses, the simulator refuses too',
    ({ documented, simulator }) => {
      const keys = Object.keys(documented.shape);
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...keys, 'extra'), anyValue), (input) => {
          if (!documented.safeParse(input).success) {
            expect(simulator.safeParse(input).success).toBe(false);
          }
        }),
        { numRuns: 300, seed: 7 },
      );
    },
  );

  test.each(stricterParts)(
    '$operationId $part: the simulator checks every field the client knows',
    ({ documented, simulator }) => {
      expect(Object.keys(simulator.shape).sort()).toEqual(Object.keys(documented.shape).sort());
    },
  );
});

describe('docs/upstream-client.md lists the request checks', () => {
  const docs = readFileSync(new URL('../../docs/upstream-client.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('### Request checks'));
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\|/, '').trim()));
  const rowOf = (id: string) =>
    rows.find(([operationsCell]) => operationsCell?.includes(`\`${id}\``));

  const withRequestChecks = operationIds.filter((id) => {
    const operation: OperationDefinition = operations[id];
    return operation.body !== undefined || operation.query !== undefined;
  });

  test.each(withRequestChecks)('%s has a row', (id) => {
    expect(rowOf(id)).toBeDefined();
  });

  test.each(withStricterSimulator)("%s's row names paysync's choices", (id) => {
    const paysyncCell = rowOf(id)?.[2]?.replace(/\|$/, '').trim();
    expect(paysyncCell).not.toBe('');
  });
});
